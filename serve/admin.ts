// The reward service's admin routes, for the operator only (the operator token): who its clients are, the
// session slots each holds (by principal and id), and the scores each principal recorded, trusted or not, its ids'
// inside it (attribution; serve/scores.ts).
import type { FastifyInstance } from 'fastify';
import { requestClient, requireOperator } from './clients.js';
import type { EpisodeSessions } from './episodes.js';
import type { PrincipalScores } from './scores.js';
import type { Service } from './service.js';

export function registerAdminRoutes(app: FastifyInstance, service: Service, sessions: EpisodeSessions): void {
  app.get('/v1/admin/clients', async (request) => {
    requireOperator(requestClient(request), 'GET /v1/admin/clients', service.credentials.hasOperator);
    const held = sessions.slots.holdings();
    const scores = service.scores?.byClient ?? new Map<string, PrincipalScores>();
    const keys = [...new Set([...held.keys(), ...scores.keys()])].sort();
    return {
      maxSessions: sessions.slots.max,
      clients: keys.map((key) => {
        const { ids, ...totals } = scores.get(key) ?? { ids: null };
        return {
          client: key,
          sessions: held.get(key) ?? 0,
          ...(ids ? { scores: { ...totals, ...(ids.size ? { ids: Object.fromEntries(ids) } : {}) } } : {}),
        };
      }),
    };
  });
}
