// The Cajeta extension: starts `cajetac lsp` (the path is the `cajeta.server.path` setting)
// and connects it to VS Code through vscode-languageclient. Plain CommonJS, so the extension
// needs no build step.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration('cajeta');
  const command = config.get('server.path') || 'cajetac';
  const extraEnv = config.get('server.env') || {};
  return {
    command,
    args: ['lsp'],
    transport: TransportKind.stdio,
    options: { env: Object.assign({}, process.env, extraEnv) },
  };
}

// The device the server compiles kernels for (docs/editors.md): a profile file or `auto`,
// and the precision options.
function initializationOptions() {
  const config = vscode.workspace.getConfiguration('cajeta');
  const profile = config.get('deviceProfile') || '';
  if (!profile) {
    return {};
  }
  return { deviceProfile: profile, precision: config.get('precision') || {} };
}

async function start() {
  client = new LanguageClient(
    'cajeta',
    'Cajeta (cajetac lsp)',
    serverOptions(),
    {
      documentSelector: [
        { scheme: 'file', language: 'cajeta' },
        { scheme: 'untitled', language: 'cajeta' },
      ],
      initializationOptions: initializationOptions(),
    },
  );
  try {
    await client.start();
  } catch (e) {
    vscode.window.showErrorMessage(
      `Cajeta: could not start \`${serverOptions().command} lsp\` (${e}). ` +
        'Set "cajeta.server.path" to the cajetac executable.',
    );
  }
}

async function restart() {
  if (client) {
    await client.stop().catch(() => {});
    client = undefined;
  }
  await start();
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('cajeta.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration('cajeta.server') ||
        e.affectsConfiguration('cajeta.deviceProfile') ||
        e.affectsConfiguration('cajeta.precision')
      ) {
        restart();
      }
    }),
  );
  await start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
