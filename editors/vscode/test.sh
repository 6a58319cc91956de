#!/usr/bin/env bash
# Grammar tests of the VS Code extension: vscode-tmgrammar-test (pinned) installed into
# node_modules here, never globally, then every tests/*.cajeta checked against
# syntaxes/cajeta.tmLanguage.json. Exits non-zero when a scope assertion fails.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        echo "installing: nodejs npm" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq nodejs npm >/dev/null
    else
        echo "npm not found: run sudo apt-get install -y nodejs npm" >&2
        exit 2
    fi
fi
if [ ! -x node_modules/.bin/vscode-tmgrammar-test ]; then
    npm install --prefix . --no-save --no-audit --no-fund --ignore-scripts \
        vscode-tmgrammar-test@0.1.3 >&2
fi
node_modules/.bin/vscode-tmgrammar-test --grammar syntaxes/cajeta.tmLanguage.json 'tests/*.cajeta'
