// The reward service's admin routes, for the operator only (the operator token): who its clients are, the
// session slots each holds, and the scores each recorded, trusted or not (attribution; serve/scores.ts).
import type { FastifyInstance } from 'fastify';
import { requestClient, requireOperator } from './clients.js';
import type { EpisodeSessions } from './episodes.js';
import type { Service } from './service.js';

export function registerAdminRoutes(app: FastifyInstance, service: Service, sessions: EpisodeSessions): void {
  app.get('/v1/admin/clients', async (request) => {
    requireOperator(requestClient(request), 'GET /v1/admin/clients', service.credentials.hasOperator);
    const held = sessions.slots.holdings();
    const scores = service.scores?.byClient ?? new Map();
    const keys = [...new Set([...held.keys(), ...scores.keys()])].sort();
    return {
      maxSessions: sessions.slots.max,
      clients: keys.map((key) => ({
        client: key,
        sessions: held.get(key) ?? 0,
        ...(scores.has(key) ? { scores: scores.get(key) } : {}),
      })),
    };
  });
}
