// The hidden record store family's generated JavaScript for its constraints (draw, test, fit, miss, say) and
// its discovery, lookup and update tools, from a records design (records.ts assembles the module).
import { tool, type ToolBlock } from './skeleton.js';
import { label, type Domain, type RecordsDesign } from './records-domains.js';

const js = JSON.stringify;

/**
 * The JavaScript of one constraint: how a goal draws it, tests a record, makes a record match or miss it, and says it.
 */
export function predicate(
  kind: string,
  field: string,
  i: number,
  d: Domain,
): { draw: string; test: string; fit: string; miss?: string; text: string } {
  const p = `g.p${i}`;
  const num = d.nums[field];
  const unit = num?.unit ?? '';
  switch (kind) {
    case 'above':
      return {
        draw:
          `${p} = rng.int(N.${field}.lo + Math.floor((N.${field}.hi - N.${field}.lo) / 4), N.${field}.hi - ` +
          `Math.floor((N.${field}.hi - N.${field}.lo) / 4));`,
        test: `r.${field} > ${p}`,
        fit: `r.${field} = rng.int(${p} + 1, N.${field}.hi);`,
        miss: `r.${field} = rng.int(N.${field}.lo, ${p});`,
        text: `\`with a ${label(field)} above \${${p}} ${unit}\``,
      };
    case 'below':
      return {
        draw:
          `${p} = rng.int(N.${field}.lo + Math.floor((N.${field}.hi - N.${field}.lo) / 4), N.${field}.hi - ` +
          `Math.floor((N.${field}.hi - N.${field}.lo) / 4));`,
        test: `r.${field} < ${p}`,
        fit: `r.${field} = rng.int(N.${field}.lo, ${p} - 1);`,
        miss: `r.${field} = rng.int(${p}, N.${field}.hi);`,
        text: `\`with a ${label(field)} below \${${p}} ${unit}\``,
      };
    case 'between':
      return {
        draw:
          `{ const w = Math.floor((N.${field}.hi - N.${field}.lo) / 3); const a = rng.int(N.${field}.lo + 1, N.` +
          `${field}.hi - w - 1); ${p} = [a, a + w]; }`,
        test: `r.${field} >= ${p}[0] && r.${field} <= ${p}[1]`,
        fit: `r.${field} = rng.int(${p}[0], ${p}[1]);`,
        miss:
          `r.${field} = rng.float() < 0.5 ? rng.int(N.${field}.lo, ${p}[0] - 1) : rng.int(${p}` +
          `[1] + 1, N.${field}.hi);`,
        text: `\`with a ${label(field)} from \${${p}[0]} to \${${p}[1]} ${unit}\``,
      };
    case 'eq':
      return {
        draw: `${p} = rng.pick(C.${field});`,
        test: `r.${field} === ${p}`,
        fit: `r.${field} = ${p};`,
        text: `\`whose ${label(field)} is \${${p}}\``,
      };
    case 'in':
      return {
        draw: `${p} = rng.shuffle(C.${field}).slice(0, 2);`,
        test: `${p}.includes(r.${field})`,
        fit: `r.${field} = rng.pick(${p});`,
        text: `\`whose ${label(field)} is \${${p}.join(' or ')}\``,
      };
    default:
      return {
        draw: `${p} = rng.pick(C.${field});`,
        test: `r.${field} !== ${p}`,
        fit: `r.${field} = rng.pick(C.${field}.filter((v) => v !== ${p}));`,
        text: `\`whose ${label(field)} is not \${${p}}\``,
      };
  }
}

export function tools(
  x: RecordsDesign,
  d: Domain,
): { blocks: ToolBlock[]; discoverAct: string; lookupAct: string; updateAct: string } {
  const N = x.names as Record<string, string>;
  const blocks: ToolBlock[] = [];
  const id = { type: 'string', minLength: 1, maxLength: 16, description: `a ${d.noun} id such as ${d.prefix}-1234` };
  let discoverAct: string;
  if (x.discover === 'list') {
    blocks.push(
      tool(
        N.list as string,
        `List the ids of every ${d.noun} on file.`,
        {},
        `(s) => { mark(s, 'list'); return \`${d.plural} on file: \${s.world.records.map((r) => r.id).join(', ')}.\`; }`,
      ),
    );
    discoverAct = `if (!has(s, 'list')) return { tool: ${js(N.list)}, args: {} };`;
  } else if (x.discover === 'pages') {
    blocks.push(
      tool(
        N.page as string,
        `List one page of ${d.plural} (${x.pageSize} ids per page, pages from 1).`,
        { page: { type: 'integer', minimum: 1, maximum: 50 } },
        `(s, a) => { const pages = Math.ceil(s.world.records.length / ${x.pageSize}); if (a.page > pages) ` +
          `return \`There are only \${pages} pages.\`; mark(s, 'page:' + a.page); return \`Page \${a.page} of ` +
          `\${pages}: \${s.world.records.slice((a.page - 1) * ${x.pageSize}, a.page * ${x.pageSize}).map((r) ` +
          `=> r.id).join(', ')}.\`; }`,
      ),
    );
    discoverAct =
      `for (let p = 1; p <= Math.ceil(s.world.records.length / ${x.pageSize}); p++) if (!has(s, 'page:' + p)) ` +
      `return { tool: ${js(N.page)}, args: { page: p } };`;
  } else if (x.discover === 'filter') {
    const cats = Object.keys(d.cats);
    blocks.push(
      tool(
        N.filter as string,
        `Find the ids of the ${d.plural} whose field has a value (` +
          `${cats.map((c) => `${c}: ${(d.cats[c] as string[]).join(', ')}`).join('; ')}).`,
        { field: { type: 'string', enum: cats }, value: { type: 'string', minLength: 1, maxLength: 40 } },
        `(s, a) => { const v = a.value.trim().toLowerCase(); mark(s, 'filter:' + a.field + '=' + v); const ` +
          `ids = s.world.records.filter((r) => String(r[a.field]) === v).map((r) => r.id); return ids.length ? ` +
          `\`${d.plural} with \${a.field} \${v}: \${ids.join(', ')}.\` : \`No ${d.noun} has ` +
          `\${a.field} \${v}.\`; }`,
      ),
    );
    discoverAct =
      `for (const v of C.${cats[0]}) if (!has(s, 'filter:${cats[0]}=' + v)) return { tool: ${js(N.filter)}, ` +
      `args: { field: ${js(cats[0])}, value: v } };`;
  } else {
    blocks.push(
      tool(
        N.count as string,
        `Count the ${d.plural} on file.`,
        {},
        `(s) => { mark(s, 'count'); return \`\${s.world.records.length} ${d.plural} on file.\`; }`,
      ),
    );
    blocks.push(
      tool(
        N.at as string,
        `Show the id of the ${d.noun} at a position of the file (from 1).`,
        { position: { type: 'integer', minimum: 1, maximum: 50 } },
        `(s, a) => { const r = s.world.records[a.position - 1]; if (!r) return \`No ${d.noun} at position ` +
          `\${a.position}.\`; mark(s, 'at:' + a.position); return \`Position \${a.position}: \${r.id}.\`; }`,
      ),
    );
    discoverAct =
      `if (!has(s, 'count')) return { tool: ${js(N.count)}, args: {} };\n  for (let i = 1; i <= ` +
      `s.world.records.length; i++) if (!has(s, 'at:' + i)) return { tool: ${js(N.at)}, ` +
      `args: { position: i } };`;
  }
  const locked = x.rules.includes('locked');
  let lookupAct: string;
  if (x.lookup === 'full') {
    blocks.push(
      tool(
        N.get as string,
        `Show every field of one ${d.noun}.`,
        { id },
        `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'look:' + ` +
          `r.id); return show(s, r); }`,
      ),
    );
    lookupAct =
      `for (const r of s.world.records) if (!has(s, 'look:' + r.id)) return { tool: ${js(N.get)}` +
      `, args: { id: r.id } };`;
  } else if (x.lookup === 'batch') {
    blocks.push(
      tool(
        N.batch as string,
        `Show every field of up to three ${d.plural} at once.`,
        { ids: { type: 'array', items: id, minItems: 1, maxItems: 3 } },
        `(s, a) => a.ids.map((x) => { const r = find(s, x); if (!r) return \`No ${d.noun} "\${x}".\`; ` +
          `mark(s, 'look:' + r.id); return show(s, r); }).join('\\n')`,
      ),
    );
    lookupAct =
      `{ const todo = s.world.records.filter((r) => !has(s, 'look:' + r.id)).map((r) => r.id); if ` +
      `(todo.length) return { tool: ${js(N.batch)}, args: { ids: todo.slice(0, 3) } }; }`;
  } else {
    const fields = [...Object.keys(d.cats), ...Object.keys(d.nums), d.target.field, ...(locked ? ['locked'] : [])];
    blocks.push(
      tool(
        N.field as string,
        `Read one field of one ${d.noun} (fields: ${fields.join(', ')}).`,
        { id, field: { type: 'string', enum: fields } },
        `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'look:' + ` +
          `r.id); mark(s, 'field:' + r.id + ':' + a.field); return \`\${r.id} \${a.field}: ` +
          `\${current(s, r, a.field)}.\`; }`,
      ),
    );
    lookupAct =
      `{ const need = [...PREDS.slice(0, s.world.goal.n)${x.by ? `, ${js(x.by)}` : ''}` +
      `${locked ? ", 'locked'" : ''}]; for (const r of s.world.records) for (const f of need) if (!has(s, ` +
      `'field:' + r.id + ':' + f)) return { tool: ${js(N.field)}, args: { id: r.id, field: f } }; }`;
  }
  let updateAct: string;
  if (x.update === 'set') {
    blocks.push(
      tool(
        N.set as string,
        `Set the ${label(d.target.field)} of one ${d.noun}.`,
        { id, value: { type: 'string', enum: d.target.values } },
        `(s, a) => change(s, a.id, TARGET.field, a.value)`,
      ),
    );
    updateAct = `{ tool: ${js(N.set)}, args: { id: r.id, value: e } }`;
  } else if (x.update === 'generic') {
    const editable = [d.target.field, ...Object.keys(d.cats)];
    blocks.push(
      tool(
        N.generic as string,
        `Change one field of one ${d.noun} (${editable.join(', ')}).`,
        { id, field: { type: 'string', enum: editable }, value: { type: 'string', minLength: 1, maxLength: 40 } },
        `(s, a) => change(s, a.id, a.field, a.value.trim().toLowerCase())`,
      ),
    );
    updateAct = `{ tool: ${js(N.generic)}, args: { id: r.id, field: TARGET.field, value: e } }`;
  } else {
    const verbs: Record<string, string> = {};
    for (const v of d.target.values) {
      const name = `${v.replace(/-/g, '_')}_${d.noun}`;
      verbs[v] = name;
      blocks.push(
        tool(
          name,
          `Set the ${label(d.target.field)} of one ${d.noun} to ${v}.`,
          { id },
          `(s, a) => change(s, a.id, TARGET.field, ${js(v)})`,
        ),
      );
    }
    updateAct = `{ tool: ${js(verbs)}[e], args: { id: r.id } }`;
  }
  return { blocks, discoverAct, lookupAct, updateAct };
}
