// The hidden record store family's vocabulary: its domains (records, fields, wording), the constraint kinds and
// policy rules a design draws from, and the design itself.

export interface Domain {
  noun: string;
  plural: string;
  prefix: string;
  place: string;
  cats: Record<string, string[]>;
  nums: Record<string, { lo: number; hi: number; unit: string }>;
  target: { field: string; values: string[]; none: string };
}

export const DOMAINS: Record<string, Domain> = {
  order: {
    noun: 'order',
    plural: 'orders',
    prefix: 'ORD',
    place: 'on the order desk of a web shop',
    cats: {
      status: ['pending', 'paid', 'packed', 'shipped'],
      channel: ['web', 'phone', 'store', 'marketplace'],
      region: ['north', 'south', 'east', 'west'],
    },
    nums: { total: { lo: 5, hi: 900, unit: 'dollars' }, weight: { lo: 1, hi: 40, unit: 'kg' } },
    target: { field: 'resolution', values: ['refund', 'reship', 'hold', 'cancel'], none: 'open' },
  },
  ticket: {
    noun: 'ticket',
    plural: 'tickets',
    prefix: 'TCK',
    place: 'as a helpdesk dispatcher',
    cats: {
      category: ['billing', 'login', 'hardware', 'network'],
      priority: ['low', 'normal', 'high', 'urgent'],
      site: ['lisbon', 'osaka', 'austin', 'berlin'],
    },
    nums: { age_hours: { lo: 1, hi: 300, unit: 'hours' }, users_affected: { lo: 1, hi: 500, unit: 'users' } },
    target: { field: 'queue', values: ['escalations', 'backlog', 'field-service', 'vendor'], none: 'triage' },
  },
  invoice: {
    noun: 'invoice',
    plural: 'invoices',
    prefix: 'INV',
    place: 'in accounts receivable',
    cats: {
      state: ['draft', 'sent', 'overdue', 'disputed'],
      currency: ['eur', 'usd', 'gbp', 'chf'],
      terms: ['net15', 'net30', 'net60', 'prepaid'],
    },
    nums: { amount: { lo: 50, hi: 20000, unit: 'units of currency' }, days_overdue: { lo: 0, hi: 180, unit: 'days' } },
    target: { field: 'action', values: ['remind', 'write-off', 'collect', 'freeze'], none: 'none' },
  },
  shipment: {
    noun: 'shipment',
    plural: 'shipments',
    prefix: 'SHP',
    place: 'in a freight control tower',
    cats: {
      carrier: ['dhl', 'ups', 'fedex', 'postal'],
      mode: ['air', 'road', 'sea', 'rail'],
      zone: ['domestic', 'eu', 'americas', 'asia'],
    },
    nums: { weight_kg: { lo: 1, hi: 900, unit: 'kg' }, transit_days: { lo: 1, hi: 45, unit: 'days' } },
    target: { field: 'instruction', values: ['reroute', 'insure', 'expedite', 'return'], none: 'as-booked' },
  },
  subscription: {
    noun: 'subscription',
    plural: 'subscriptions',
    prefix: 'SUB',
    place: 'on a software billing team',
    cats: {
      plan: ['basic', 'plus', 'pro', 'team'],
      billing: ['monthly', 'yearly', 'quarterly', 'trial'],
      market: ['emea', 'apac', 'latam', 'na'],
    },
    nums: { seats: { lo: 1, hi: 200, unit: 'seats' }, months_active: { lo: 1, hi: 60, unit: 'months' } },
    target: { field: 'change', values: ['upgrade', 'downgrade', 'renew', 'cancel'], none: 'unchanged' },
  },
  vehicle: {
    noun: 'vehicle',
    plural: 'vehicles',
    prefix: 'VEH',
    place: 'as a fleet manager',
    cats: {
      body: ['van', 'truck', 'sedan', 'pickup'],
      depot: ['harbor', 'airport', 'central', 'ring'],
      fuel: ['diesel', 'petrol', 'electric', 'hybrid'],
    },
    nums: { mileage_km: { lo: 1000, hi: 250000, unit: 'km' }, days_since_service: { lo: 1, hi: 400, unit: 'days' } },
    target: { field: 'assignment', values: ['service', 'retire', 'reassign', 'inspect'], none: 'in-use' },
  },
  badge: {
    noun: 'badge',
    plural: 'badges',
    prefix: 'BDG',
    place: 'on the building security desk',
    cats: {
      department: ['finance', 'research', 'sales', 'legal'],
      building: ['north-tower', 'annex', 'lab', 'depot'],
      clearance: ['visitor', 'staff', 'manager', 'admin'],
    },
    nums: { days_unused: { lo: 0, hi: 365, unit: 'days' }, failed_swipes: { lo: 0, hi: 40, unit: 'failed swipes' } },
    target: { field: 'access', values: ['revoke', 'renew', 'suspend', 'downgrade'], none: 'active' },
  },
  claim: {
    noun: 'claim',
    plural: 'claims',
    prefix: 'CLM',
    place: 'on a warranty claims team',
    cats: {
      product: ['laptop', 'phone', 'tablet', 'monitor'],
      source: ['online', 'retail', 'partner', 'hotline'],
      cause: ['drop', 'water', 'battery', 'screen'],
    },
    nums: { claim_value: { lo: 20, hi: 3000, unit: 'dollars' }, days_owned: { lo: 1, hi: 900, unit: 'days' } },
    target: { field: 'decision', values: ['approve', 'reject', 'repair', 'replace'], none: 'pending' },
  },
};

export const PRED_KINDS = { num: ['above', 'below', 'between'], cat: ['eq', 'in', 'not'] } as const;
export const RULES = ['lookup-first', 'locked', 'log', 'confirm-count'] as const;
export type Rule = (typeof RULES)[number];

export interface RecordsDesign {
  family: 'records';
  domain: string;
  /** Constraint kinds and fields, the first numeric; level n uses the first `preds` of them. */
  preds: Array<{ kind: string; field: string }>;
  /** set: one value for every match; map: the value depends on a category; rank: only the top matches by a number. */
  goal: 'set' | 'map' | 'rank';
  /** The field a map goal reads (a category) or a rank goal sorts by (a number). */
  by: string;
  discover: 'list' | 'pages' | 'filter' | 'index';
  lookup: 'full' | 'field' | 'batch';
  update: 'set' | 'generic' | 'per-value';
  rules: Rule[];
  names: Record<string, string>;
  pageSize: number;
  levels: Array<{ records: number; preds: number; locked: number; targets: number }>;
}

export const label = (field: string) => field.replace(/_/g, ' ');
