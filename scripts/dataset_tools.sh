#!/usr/bin/env bash
# The tools whose datasets `assay-agents import-dataset` reads, installed apart from .venv so that
# the tests can load the fixtures with the tools themselves (tests/load/test_dataset_tools.py):
#   .venv-datasets/  Inspect AI and DeepEval (their pins would move packages .venv has)
#   .node-datasets/  promptfoo from npm
# Each is built only when missing, so running this again does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! .venv-datasets/bin/python -c 'import inspect_ai.dataset, deepeval.dataset' 2>/dev/null; then
  rm -rf .venv-datasets
  python3 -m venv .venv-datasets
  .venv-datasets/bin/pip install -q 'inspect-ai>=0.3.285' 'deepeval>=4.3' &
  python_tools=$!
fi

if [ ! -x .node-datasets/node_modules/.bin/promptfoo ]; then
  # 0.121.20 is the last promptfoo that runs on Node 20. Its optional dependencies (browsers,
  # cloud SDKs, local models) are over 1 GB, so they are left out; libsql's native part, one
  # of them, is the one `promptfoo validate` needs.
  arch=$(node -p process.arch)
  npm install --prefix .node-datasets --omit=optional --no-audit --no-fund --loglevel=error \
    promptfoo@0.121.20 "@libsql/linux-${arch}-gnu@0.5.29"
fi

if [ -n "${python_tools:-}" ]; then
  wait "$python_tools"
fi
