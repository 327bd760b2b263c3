// The text contract of the episodic runtime (contract v2): every prompt and observation a module writes is checked
// on every call, inside the isolate, before it crosses: a string, at most MAX_TEXT_CHARS long, no control character
// but tab and newline (contract/text.ts PROSE_CONTROL), well-formed Unicode and in normal form C (the form a trainer's
// tokenizer gives the model). tests/contract-text.test.ts ties these expressions to contract/text.ts.
//
// Evaluated as a plain script beside episodic-runtime.js, which calls `envforgeEpisodicText(d)`; it touches no host
// objects.
/* eslint-disable no-var */
var envforgeEpisodicText = function envforgeEpisodicText(d) {
  'use strict';
  var runtimeError = d.runtimeError;
  var MAX_TEXT_CHARS = 16000;
  var CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/;
  var LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  var NOT_ASCII = /[^\u0000-\u007f]/;
  var normalize = String.prototype.normalize;
  return function text(value, what) {
    if (typeof value !== 'string') throw runtimeError('E_INSTANCE', what + ' must be a string');
    if (value.length > MAX_TEXT_CHARS)
      throw runtimeError(
        'E_TOO_LARGE',
        what + ' has ' + value.length + ' characters, over the limit of ' + MAX_TEXT_CHARS,
      );
    var bad = CONTROL.exec(value);
    if (bad !== null)
      throw runtimeError(
        'E_CONTROL_CHARS',
        what +
          ' holds the control character U+' +
          ('000' + bad[0].charCodeAt(0).toString(16).toUpperCase()).slice(-4) +
          ' at character ' +
          bad.index +
          ': tab and newline are the only controls prose may hold',
      );
    if (NOT_ASCII.test(value)) {
      var lone = LONE_SURROGATE.exec(value);
      if (lone !== null)
        throw runtimeError(
          'E_MALFORMED_TEXT',
          what +
            ' is not well-formed Unicode (a lone surrogate at character ' +
            lone.index +
            '): UTF-8 readers (tokenizers, Python, parquet) fail on it',
        );
      if (normalize.call(value, 'NFC') !== value)
        throw runtimeError(
          'E_MALFORMED_TEXT',
          what +
            " is not in Unicode normal form C: a trainer's tokenizer normalizes it, so the model reads other " +
            'characters than the environment wrote and cannot copy them back (write the text NFC-normalized)',
        );
    }
    return value;
  };
};
