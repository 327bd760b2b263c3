// The python3 the tests run generated shims and Python drivers with: $ENVFORGE_PYTHON, else the machine's Debian
// python3 (/usr/bin/python3, whose packages .ci/run installs: python3-yaml, python3-omegaconf, python3-websockets,
// python3-requests), else python3 on PATH. A package a test needs and the interpreter lacks fails that test loudly.
import { existsSync } from 'node:fs';

export const PYTHON = process.env.ENVFORGE_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
