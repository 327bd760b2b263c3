// The environment contract's rules, one pattern each, as both the verbatim contract (docs/environment-
// contract.md) and the compact digests (prompts/compact/contract-*.md) state them: the profile test lists
// which rules each prompt of each profile carries. Text is compared lower-case, without backticks or
// asterisks, whitespace collapsed.

export interface ContractRule {
  id: string;
  /** Every pattern must match the prompt. */
  patterns: RegExp[];
  /** What the validator's automated checks enforce: the reviewer, told they passed, is not given these. */
  authorOnly?: boolean;
}

export const normalise = (text: string): string => text.toLowerCase().replace(/[`*]/g, '').replace(/\s+/g, ' ');

/** Rules every module follows, whatever its kind. */
const SANDBOX: ContractRule[] = [
  {
    id: 'one-module-no-imports',
    patterns: [/one self-contained javascript es module|one javascript es module/, /no imports/],
  },
  { id: 'sandbox-no-node-network', patterns: [/no node apis/, /no network/, /no top-level await/] },
  { id: 'clock-frozen', patterns: [/date\.now\(\) is always 0/] },
  { id: 'randomness-from-rng', patterns: [/math\.random throws/, /rng\.int\(lo, hi\)/] },
  { id: 'synchronous', patterns: [/synchronous/] },
  { id: 'name-kebab-64', patterns: [/kebab-case/, /at most 64 characters/] },
  { id: 'skills-1-to-5', patterns: [/1 to 5 kebab-case tags/] },
  { id: 'levels-3-to-20', patterns: [/3 to 20/] },
  { id: 'module-state-constant', patterns: [/top-level values (must be|are) constants/] },
];

export const SINGLE_RULES: ContractRule[] = [
  ...SANDBOX,
  {
    id: 'exports-generate-solve-verify',
    patterns: [/generate\(rng, level\)/, /solve\(instance\)/, /verify\(instance, response\)/],
  },
  { id: 'same-seed-same-instance', patterns: [/same \(seed, level\) must give the same instance/] },
  { id: 'instance-plain-json', patterns: [/plain json/] },
  { id: 'prompt-only-visible-16000', patterns: [/only field the policy model sees/, /16,000 characters/] },
  { id: 'format-placeholder', patterns: [/placeholder/, /never a concrete example value/] },
  { id: 'answer-never-in-prompt', patterns: [/never write the answer itself in the prompt/] },
  { id: 'accept-every-correct-answer', patterns: [/accept every correct answer/, /against the instance/] },
  {
    id: 'reject-wrong-families',
    patterns: [
      /empty or whitespace responses/,
      /an empty answer tag/,
      /another instance's answer/,
      /±1 or negated/,
      /junk of any length/,
    ],
  },
  { id: 'text-outside-tag-ignored', patterns: [/text outside the answer tag (must )?never changes? the score/] },
  { id: 'every-requirement-checked', patterns: [/check every requirement the prompt states/] },
  { id: 'never-throw-linear-time', patterns: [/never throw/, /linear in the response length/] },
  { id: 'partial-credit-documented', patterns: [/partial credit only where it is natural/] },
  { id: 'difficulty-grows', patterns: [/level 1 is easy/, /grows? with the level/] },
  { id: 'guessing-never-pays', patterns: [/a fifth of a level's instances/, /listing every option the prompt prints/] },
  { id: 'fast', patterns: [/a few milliseconds/] },
  { id: 'kit-answer-rule', patterns: [/kit\.answer\(response\)/] },
];

export const EPISODIC_RULES: ContractRule[] = [
  ...SANDBOX,
  {
    id: 'exports-reset-step-score-act',
    patterns: [/reset\(rng, level\)/, /step\(state, action, rng\)/, /score\(state\)/, /act\(state\)/],
  },
  { id: 'meta-kind-maxturns', patterns: [/kind: 'episodic'/, /maxturns[^|]{0,40}1 ?(\.\.|to) ?100/] },
  { id: 'state-plain-json-256kb', patterns: [/plain json/, /256 kb/] },
  { id: 'step-pure-state-holds-all', patterns: [/pure function of \(state, action, rng\)/] },
  { id: 'tools-schema-subset', patterns: [/snake_case/, /additionalproperties: false/, /not supported: pattern/] },
  { id: 'host-checks-actions', patterns: [/error:/, /(maxerrors bad actions in one episode \(3|after 3 bad actions)/] },
  {
    id: 'step-handles-every-valid-value',
    patterns: [/(every value the schema allows|every schema-valid value)/, /never by throwing/],
  },
  { id: 'episode-ends-terminal-reward', patterns: [/without a tool call/, /(rewards are terminal|the only reward)/] },
  { id: 'world-is-code', patterns: [/the world is code/] },
  { id: 'prompt-observations-16000-paginate', patterns: [/16,000 characters/, /paginate long listings/] },
  { id: 'prompt-states-goal-no-secrets', patterns: [/turn limit/, /discovered through tools/] },
  { id: 'observations-no-reward-no-derived', patterns: [/never reveal the reward/] },
  { id: 'lookup-is-not-a-leak', patterns: [/copying is (not computing|fine)/] },
  { id: 'prompt-varies-with-seed', patterns: [/vary the facts stated in the prompt with the seed/] },
  { id: 'reference-solves-within-maxturns', patterns: [/within maxturns at every level and seed/] },
  { id: 'maxturns-for-discovering-agent', patterns: [/2\.5 times the reference's actions/] },
  { id: 'score-final-state-no-claim', patterns: [/final state alone/, /claim/] },
  { id: 'finishing-tool-alone-never-pays', patterns: [/finishing call alone never pays/] },
  { id: 'all-or-nothing', patterns: [/all or nothing/, /below 0\.1/] },
  { id: 'sets-and-violations', patterns: [/as sets where order does not matter/] },
  {
    id: 'every-instance-needs-work',
    patterns: [/every instance needs work/, /several distinct, discovered arguments/],
  },
  { id: 'large-id-space', patterns: [/ids? (drawn )?from a large space/, /never a count of calls/] },
  { id: 'every-stated-rule-matters', patterns: [/every stated rule (must )?matters?/, /skips a required read/] },
  { id: 'no-cheaper-strategy', patterns: [/no cheaper strategy (may )?pays?/, /free text that score never checks/] },
  {
    id: 'validator-probes',
    patterns: [
      /adversary library/,
      /the reference minus its last action|the reference policy's actions minus the last one/,
    ],
    authorOnly: true,
  },
  { id: 'episode-grows-with-level', patterns: [/(state size|the state) grows with the level/], authorOnly: true },
];

/** The rules a text lacks (ids), checked pattern by pattern. */
export function missingRules(text: string, rules: readonly ContractRule[]): string[] {
  const flat = normalise(text);
  return rules.filter((rule) => !rule.patterns.every((p) => p.test(flat))).map((rule) => rule.id);
}
