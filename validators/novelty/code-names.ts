// The names the code fingerprint keeps as written (code.ts): JavaScript's keywords, and the global and member
// names the platform fixes, which a module cannot rename; every other identifier is masked.

export const KEYWORDS: ReadonlySet<string> = new Set([
  'break', 'case', 'catch', 'class', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'export',
  'extends', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'return', 'super',
  'switch', 'this', 'throw', 'try', 'typeof', 'void', 'while', 'with', 'yield', 'static', 'async', 'await',
  'of', 'get', 'set', 'null', 'true', 'false', 'undefined', 'NaN', 'Infinity',
]);
/** Keywords after which a value has ended (so a following '/' divides). */
export const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['this', 'super', 'null', 'true', 'false', 'undefined', 'NaN', 'Infinity']);

/**
 * Names kept verbatim as bare identifiers besides keywords: those an environment cannot rename without
 * changing what it means, i.e. the contract's exports, the host's global `kit` and JavaScript globals.
 * Parameter and local names (`rng`, `instance`, `response`, `level`, `values`, `max`, ...) become 'id': they
 * are only conventions, and a renamed copy must fingerprint the same.
 */
export const GLOBAL_NAMES: ReadonlySet<string> = new Set([
  'meta', 'generate', 'solve', 'verify', 'kit',
  'Math', 'JSON', 'Number', 'String', 'Array', 'Object', 'Set', 'Map', 'BigInt', 'Boolean', 'Error', 'RegExp',
  'Symbol', 'parseInt', 'parseFloat', 'isNaN', 'isFinite',
]);

/**
 * Names kept verbatim right after a '.': the instance fields `prompt`/`answer`, the methods of `kit` and
 * `rng`, and common built-in members. Other property names become 'id'.
 */
export const MEMBER_NAMES: ReadonlySet<string> = new Set([
  'prompt', 'answer', 'normalize', 'int', 'number', 'list', 'float', 'pick', 'shuffle',
  'length', 'push', 'pop', 'shift', 'unshift', 'slice', 'splice', 'map', 'filter', 'reduce', 'forEach', 'some',
  'every', 'find', 'findIndex', 'includes', 'indexOf', 'join', 'split', 'sort', 'reverse', 'concat', 'fill',
  'keys', 'values', 'entries', 'from', 'floor', 'ceil', 'round', 'abs', 'min', 'max', 'pow', 'sqrt', 'trunc',
  'sign', 'log', 'trim', 'toLowerCase', 'toUpperCase', 'replace', 'match', 'test', 'startsWith', 'endsWith',
  'padStart', 'padEnd', 'repeat', 'has', 'add', 'get', 'set', 'delete', 'size', 'stringify', 'parse', 'toString',
  'toFixed', 'charCodeAt', 'fromCharCode', 'charAt', 'isInteger', 'isSafeInteger', 'assign', 'freeze', 'flat',
  'flatMap', 'at', 'localeCompare',
]);
