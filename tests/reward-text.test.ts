// OpenRLHF's reward query is the decoded prompt and response; when the prompt was over its budget OpenRLHF kept its
// last tokens only. The service finds the response after the prompt, or after the longest tail of it the query starts
// with.
import { describe, expect, it } from 'vitest';
import { responseOf } from '../serve/reward-text.js';

const prompt =
  'Solve the knapsack instance below and answer as <answer>items</answer>.\nItems: a=3, b=5, c=7.\nCapacity: 10.\n';
const answer = 'I pick a and c.\n<answer>a,c</answer>';

describe('the response in an OpenRLHF query', () => {
  it.each([
    ['the whole prompt, then the response', prompt + answer, answer],
    ['the prompt cut at the front by 50 characters', prompt.slice(50) + answer, answer],
    ['a cut that left a broken first character', `\ufffd${prompt.slice(51)}${answer}`, answer],
    ["only the prompt's last 20 characters", prompt.slice(-20) + answer, answer],
    [
      "a response that repeats the prompt's tail",
      prompt.slice(30) + prompt.slice(-20) + answer,
      prompt.slice(-20) + answer,
    ],
    ['no prompt at all (the query is the response)', answer, answer],
    ['an empty response after a cut prompt', prompt.slice(70), ''],
  ])('%s', (_, query, response) => {
    expect(responseOf(query, prompt)).toBe(response);
  });

  it('does not take a short coincidence for the prompt', () => {
    // The prompt ends with "10.\n"; a response starting "10.\n" alone is not a cut prompt.
    expect(responseOf('10.\nnothing else', prompt)).toBe('10.\nnothing else');
  });

  it('runs in linear time on long prompts', () => {
    const long = 'ab'.repeat(200_000);
    expect(responseOf(long.slice(1_000) + 'X', long)).toBe('X');
  });
});
