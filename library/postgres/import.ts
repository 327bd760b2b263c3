// `envforge library migrate --from DIR --to postgres://…`: copies a library (any store, read through the
// Library contract) into an empty PostgreSQL library in one transaction, keeping every name, version,
// hash, status, report, lineage, timestamp, rejection, batch, journal entry and incident, then verifies
// the copy by reading both back through the contract.
import { isDeepStrictEqual } from 'node:util';
import { LibraryError, type Library } from '../contract.js';
import { keptBytes, toJson } from '../store-kit.js';
import { PgDb } from './db.js';
import type { PostgresLibrary } from './store.js';

export interface ImportSummary {
  environments: number;
  rejections: number;
  batches: number;
  journalEntries: number;
  incidents: number;
}

/** Everything a library holds, as the contract reads it (rejections and incidents oldest first). */
async function snapshot(library: Library) {
  const envs = (await library.admittedSince(0)).envs;
  const sources = await Promise.all(envs.map((e) => library.source(e)));
  const rejections = (await library.rejections({ limit: Number.MAX_SAFE_INTEGER })).reverse();
  const batches = (await library.listBatches()).reverse();
  const journals = await Promise.all(batches.map((b) => library.journal(b.id)));
  const incidents = await library.incidents();
  const quarantines = await library.quarantines();
  return { envs, sources, rejections, batches, journals, incidents, quarantines };
}

export async function importLibrary(from: Library, to: PostgresLibrary): Promise<ImportSummary> {
  const data = await snapshot(from);
  await to.db.write(`copying ${from.dir} into ${to.dir}`, async (q) => {
    const held = (
      await q(
        'SELECT (SELECT count(*) FROM envforge.envs) + (SELECT count(*) FROM envforge.batches) + (SELECT ' +
          'count(*) FROM envforge.rejections) AS n',
      )
    ).rows[0] as { n: string };
    if (Number(held.n) > 0)
      throw new LibraryError(`${to.dir} already holds a library; migrate copies only into an empty one`);
    for (const [i, e] of data.envs.entries()) {
      await q('INSERT INTO envforge.modules (hash, source) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING', [
        e.hash,
        data.sources[i],
      ]);
      await q(
        `INSERT INTO envforge.envs (name, version, hash, meta, skills, levels, status, retired_reason, ` +
          `report, curve, fingerprint, lineage, author, validator_version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        [
          e.name,
          e.version,
          e.hash,
          JSON.stringify(e.meta),
          JSON.stringify(e.meta.skills),
          e.meta.levels,
          e.status,
          e.retiredReason,
          toJson(e.report, 'a report'),
          JSON.stringify(e.curve),
          e.fingerprint ? JSON.stringify(e.fingerprint) : null,
          JSON.stringify(e.lineage),
          e.lineage.author,
          e.validatorVersion,
          e.createdAt,
          e.updatedAt,
        ],
      );
    }
    for (const r of data.rejections) {
      await q(
        'INSERT INTO envforge.rejections (hash, name, codes, batch_id, report, lineage, created_at) VALUES ' +
          '($1, $2, $3, $4, $5, $6, $7)',
        [
          r.hash,
          r.name,
          JSON.stringify(r.codes),
          r.lineage.batchId ?? null,
          toJson(r.report, 'a report'),
          JSON.stringify(r.lineage),
          r.createdAt,
        ],
      );
    }
    for (const [i, b] of data.batches.entries()) {
      await q(
        'INSERT INTO envforge.batches (id, status, options, report, ledger, created_at, updated_at, ' +
          'finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [
          b.id,
          b.status,
          toJson(b.options, 'batch options'),
          b.report === null ? null : toJson(b.report, 'a batch report'),
          b.ledger === null ? null : toJson(b.ledger, 'a ledger'),
          b.createdAt,
          b.updatedAt,
          b.finishedAt,
        ],
      );
      for (const j of data.journals[i] ?? [])
        await q(
          'INSERT INTO envforge.journal (batch_id, seq, kind, key, payload, created_at) VALUES ' +
            '($1, $2, $3, $4, $5, $6)',
          [j.batchId, j.seq, j.kind, j.key, toJson(j.payload, 'a journal entry'), j.createdAt],
        );
    }
    for (const x of data.incidents) {
      await q(
        'INSERT INTO envforge.incidents (hash, name, version, seed, level, code, fn, message, response, ' +
          'origin, confirmed, created_at, resolved_at, resolution, client, payer, kept_bytes, cut_chars, cut_sha256) ' +
          'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)',
        [
          x.hash,
          x.name,
          x.version,
          x.seed,
          x.level,
          x.code,
          x.fn,
          x.message,
          x.response ?? null,
          x.origin,
          x.confirmed,
          x.createdAt,
          x.resolvedAt,
          x.resolution,
          x.client ?? null,
          x.principal ?? null,
          keptBytes(x.message, x.response ?? null),
          x.responseCut?.chars ?? null,
          x.responseCut?.sha256 ?? null,
        ],
      );
    }
    for (const x of data.quarantines)
      await q('INSERT INTO envforge.quarantines (hash, reason, created_at) VALUES ($1, $2, $3)', [
        x.hash,
        x.reason,
        x.createdAt,
      ]);
    await PgDb.changed(q);
  });
  await verify(data, await snapshot(to), to.dir);
  return {
    environments: data.envs.length,
    rejections: data.rejections.length,
    batches: data.batches.length,
    journalEntries: data.journals.reduce((n, j) => n + j.length, 0),
    incidents: data.incidents.length,
  };
}

/** The copy reads back exactly as the original, part by part (incident ids aside: each store numbers its own). */
async function verify(
  a: Awaited<ReturnType<typeof snapshot>>,
  b: Awaited<ReturnType<typeof snapshot>>,
  where: string,
): Promise<void> {
  const withoutIds = (xs: typeof a.incidents) => xs.map(({ id: _id, ...rest }) => rest);
  const parts: Array<[string, unknown, unknown]> = [
    ['environments', a.envs, b.envs],
    ['module sources', a.sources, b.sources],
    ['rejections', a.rejections, b.rejections],
    ['batches', a.batches, b.batches],
    ['journals', a.journals, b.journals],
    ['incidents', withoutIds(a.incidents), withoutIds(b.incidents)],
    ['quarantines', a.quarantines, b.quarantines],
  ];
  for (const [what, left, right] of parts)
    if (!isDeepStrictEqual(left, right))
      throw new LibraryError(`the copy at ${where} does not read back like the original: its ${what} differ`);
}
