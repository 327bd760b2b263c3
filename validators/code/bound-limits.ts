// The well-known named limits of programming languages ("Number.MAX_SAFE_INTEGER", "INT_MAX", "LLONG_MAX",
// "Long.MAX_VALUE", "i64::MAX", "a safe integer") written as the magnitudes they name (redteam-s24c K2), so that a
// bound stated with a constant's name is read like one stated with digits: the reader's vocabulary, as number words
// are. A limit named as advice for the program ("a safe integer is enough") is left as it is.

/** A signed limit: the largest value of a k-bit two's-complement integer, and its smallest. */
const signed = (k: number) => ({ max: `2^${k - 1} - 1`, min: `-2^${k - 1}` });

/** The named limits: each an alternation of the names languages give it, and its value as the reader writes it. */
const LIMITS: ReadonlyArray<readonly [string, string]> = [
  [String.raw`(?:Number\.)?MAX_SAFE_INTEGER`, '2^53 - 1'],
  [String.raw`(?:Number\.)?MIN_SAFE_INTEGER`, '-(2^53 - 1)'],
  [
    String.raw`INT_MAX|INT32_MAX|Integer\.MAX_VALUE|Int32\.MaxValue|int\.MaxValue|i32::MAX|(?:math\.)?MaxInt32`,
    signed(32).max,
  ],
  [
    String.raw`INT_MIN|INT32_MIN|Integer\.MIN_VALUE|Int32\.MinValue|int\.MinValue|i32::MIN|(?:math\.)?MinInt32`,
    signed(32).min,
  ],
  [
    String.raw`LLONG_MAX|LONG_LONG_MAX|LONG_MAX|INT64_MAX|Long\.MAX_VALUE|Int64\.MaxValue|long\.MaxValue|i64::MAX|` +
      String.raw`(?:math\.)?MaxInt64|sys\.maxsize`,
    signed(64).max,
  ],
  [
    String.raw`LLONG_MIN|LONG_LONG_MIN|LONG_MIN|INT64_MIN|Long\.MIN_VALUE|Int64\.MinValue|long\.MinValue|i64::MIN|` +
      String.raw`(?:math\.)?MinInt64`,
    signed(64).min,
  ],
  [String.raw`UINT_MAX|UINT32_MAX|u32::MAX|(?:math\.)?MaxUint32`, '2^32 - 1'],
  [String.raw`ULLONG_MAX|ULONG_MAX|UINT64_MAX|u64::MAX|(?:math\.)?MaxUint64`, '2^64 - 1'],
  [String.raw`SHRT_MAX|INT16_MAX|Short\.MAX_VALUE|i16::MAX|(?:math\.)?MaxInt16`, signed(16).max],
  [String.raw`USHRT_MAX|UINT16_MAX|u16::MAX|(?:math\.)?MaxUint16`, '2^16 - 1'],
  [String.raw`SCHAR_MAX|INT8_MAX|Byte\.MAX_VALUE|i8::MAX|(?:math\.)?MaxInt8`, signed(8).max],
  [String.raw`UCHAR_MAX|UINT8_MAX|u8::MAX|(?:math\.)?MaxUint8`, '255'],
];
const NAMED = LIMITS.map(
  ([names, value]) => [new RegExp(String.raw`(?<![\w$.:])(?:${names})(?![\w$])`, 'g'), value] as const,
);

/** "safe integer(s)": an integer a double holds exactly, below 2^53 in magnitude. */
const SAFE_INTEGER = /\b(?:(?:JavaScript|JS)\s+)?safe\s+(integers?)\b/gi;

/**
 * The statement with each named limit as its magnitude; `advice` tells a name given as advice for the program (the
 * solver's variable, no bound of an input).
 */
export function namedLimits(text: string, advice: (all: string, at: number, length: number) => boolean): string {
  let out = text;
  for (const [pattern, value] of NAMED)
    out = out.replace(pattern, (whole: string, at: number, all: string) =>
      advice(all, at, whole.length) ? whole : value,
    );
  return out.replace(SAFE_INTEGER, (whole: string, noun: string, at: number, all: string) =>
    advice(all, at, whole.length) ? whole : `${noun} below 2^53`,
  );
}
