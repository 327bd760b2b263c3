// T8-3 (tests/fixtures/redteam-trust8): a guest's failure message is one line that lays nothing out. A run of blanks
// in it once pushed a fake "✓ NAME@1  admitted" to the start of a wrapped terminal line in `envforge validate`; the
// hold-out writes the run with the braille blank (U+2800), which is no whitespace. Needs `npm run build`.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { guestLine, logLine } from '../contract/text.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LAYOUT_RUN = /[\s\u2800\p{Default_Ignorable_Code_Point}]{3,}/u;

async function validate(file: string): Promise<string> {
  const args = ['dist/cli/main.js', 'validate', file, '--json', '--validation-seed', '11'];
  const out = await run('node', args, { cwd: ROOT }).catch((e: { stdout: string }) => e);
  return out.stdout;
}

describe("a guest's message lays nothing out (T8-3)", () => {
  it('folds each line break and each run of blanks to one space, and keeps single blanks as written', () => {
    expect(guestLine(`bad level${' '.repeat(200)}✓ x@1  admitted`)).toBe('bad level ✓ x@1 admitted');
    expect(guestLine(`a${'\u2800'.repeat(50)}b\t\t\u00a0c\u3164\u3164d\n\u2028e`)).toBe('a b c d e');
    expect(guestLine('level 3 of 10: expected a number, got "x y"')).toBe(
      'level 3 of 10: expected a number, got "x y"',
    );
    expect(guestLine('family 👩\u200d👩\u200d👧 ok')).toBe('family 👩\u200d👩\u200d👧 ok');
  });

  it('a log line breaks no line (redteam-v21 V21-4): LF, LS, PS, CR and NEL escaped, controls as terminalSafe', () => {
    const line = logLine('unknown "q\nenvforge serve: x@1 quarantined\u2028y\u2029z\r\u0085\u001b[2J" ok');
    expect(line).toBe('unknown "q\\u000aenvforge serve: x@1 quarantined\\u2028y\\u2029z\\u000d\\u0085\\u001b[2J" ok');
    expect(line.split(/[\n\r\u2028\u2029\u0085]/)).toHaveLength(1);
    expect(logLine(line)).toBe(line);
  });

  for (const fixture of ['wrap-verdict.js', 'wrap-verdict-braille.js'])
    it(`validate prints ${fixture}'s padded message without its padding`, async () => {
      const line = JSON.parse(await validate(`tests/fixtures/redteam-trust8/${fixture}`)) as {
        verdict: string;
        problems: Array<{ code: string; message: string }>;
      };
      expect(line.verdict).toBe('reject');
      const thrown = line.problems.find((p) => p.code === 'E_THROWN');
      expect(thrown?.message).toContain('bad level ✓ dice-probability@1 admitted');
      expect(thrown?.message).not.toMatch(LAYOUT_RUN);
    }, 60_000);
});
