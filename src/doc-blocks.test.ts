import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  allDocBlocks,
  BLOCK_CLASSES,
  type DocBlock,
  describeBlock,
  parseBlocks,
  REPO_ROOT,
  snippetFolder,
} from './testing/doc-blocks.ts';

/**
 * Every fenced block of README.md, docs/*.md and sdk/README.md is classed (src/testing/doc-blocks.ts), and the
 * `run` blocks run as written against one server started by README's `npm start`, on a temporary data folder,
 * each document in its own shell session (exported variables carry from block to block), in reading order.
 *
 * What stands in for the reader, and nothing else is changed:
 * - PLACEHOLDERS: the docs' server address and certificate path become the test server's; `<customerId>` and
 *   the like become what an earlier command printed (CAPTURES), as a reader copies them. A placeholder with
 *   nothing printed before it fails the block.
 * - Every session starts with KEY set to the demo key `npm start` printed (getting-started exports its own),
 *   DATA_DIR set to the server's folder, and the embedded database (no DATABASE_URL or REDIS_URL), as a
 *   reader on a fresh checkout has: the server runs on PGlite on both backends of the suite.
 * - Clients trust the server's self-signed certificate (CURL_CA_BUNDLE, NODE_EXTRA_CA_CERTS) as they trust a
 *   real service's; `curl` fails on an HTTP error status (a shim adds --fail-with-body), so a refused request
 *   fails its block.
 * - TypeScript blocks run on Node 24 from a folder linked to this repository's node_modules, with
 *   `--conditions=@voice-calls/source` (README: the SDK resolves to sdk/src); they must exit 0 and print.
 */

const run = promisify(execFile);

type Session = {
  env: NodeJS.ProcessEnv;
  /** What each placeholder stands for: the server's address and certificate, and values printed so far. */
  values: Map<string, string>;
  dir: string;
};

/** A value printed by a command, and the placeholder a later block uses for it. */
const CAPTURES: { placeholder: string; pattern: RegExp }[] = [
  { placeholder: '<customerId>', pattern: /Created customer ([0-9a-f-]{36}) / },
  { placeholder: '<assistant id>', pattern: /Created assistant ([0-9a-f-]{36}) / },
  { placeholder: 'svc_live_...', pattern: /\b(svc_live_[0-9A-Za-z]{36})\b/ },
  { placeholder: '<subscription id>', pattern: /"id":"(sub_[0-9a-f]+)"/ },
  { placeholder: '<next_cursor>', pattern: /"next_cursor":"([^"]+)"/ },
];
/** The docs' server (README: `npm start` serves https://127.0.0.1:8443; elsewhere a service's address). */
const SERVER_PLACEHOLDERS = ['https://127.0.0.1:8443', 'https://api.example.com'];
const CERT_PLACEHOLDER = 'data/tls/cert.pem';
const PLACEHOLDERS = [...SERVER_PLACEHOLDERS, CERT_PLACEHOLDER, ...CAPTURES.map((c) => c.placeholder)];

function capture(values: Map<string, string>, output: string): void {
  for (const { placeholder, pattern } of CAPTURES) {
    const found = [...output.matchAll(new RegExp(pattern, 'g'))].at(-1)?.[1];
    if (found) values.set(placeholder, found);
  }
}

function substitute(values: Map<string, string>, text: string, where: string): string {
  let out = text;
  for (const placeholder of PLACEHOLDERS) {
    if (!out.includes(placeholder)) continue;
    const value = values.get(placeholder);
    assert.ok(value, `${where} uses ${placeholder}, and nothing before it printed one`);
    out = out.replaceAll(placeholder, value);
  }
  return out;
}

/** The shell commands of a block: continuation lines joined, comment lines left out. */
function shellCommands(code: string): string[] {
  const commands: string[] = [];
  let current: string[] = [];
  for (const line of code.split('\n')) {
    current.push(line);
    if (line.endsWith('\\')) continue;
    const command = current.join('\n');
    current = [];
    if (command.trim() !== '' && !command.trimStart().startsWith('#')) commands.push(command);
  }
  return commands;
}

/** Runs a program to its end; a non-zero exit fails the test with the end of what it printed. */
async function runOrFail(
  where: string,
  command: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string> {
  const [bin = '', ...args] = command;
  const tail = (text = '') => text.slice(-3000);
  const { stdout } = await run(bin, args, {
    ...options,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { code?: number; stdout?: string; stderr?: string }) =>
    assert.fail(`${where} exited ${error.code}\n${tail(error.stdout)}\n${tail(error.stderr)}`),
  );
  return stdout;
}

async function runShell(session: Session, block: DocBlock): Promise<void> {
  for (const command of shellCommands(block.code)) {
    const where = `${describeBlock(block)}: ${command.split('\n')[0]}`;
    const script = `source "$DOCS_STATE"\n${substitute(session.values, command, where)}\nstatus=$?\nexport -p > "$DOCS_STATE"\nexit $status\n`;
    capture(
      session.values,
      await runOrFail(where, ['bash', '-c', script], { cwd: REPO_ROOT, env: session.env }),
    );
  }
}

async function runTypeScript(session: Session, block: DocBlock): Promise<void> {
  const file = path.join(session.dir, `${block.file.replaceAll('/', '-')}-${block.line}.ts`);
  writeFileSync(file, substitute(session.values, block.code, describeBlock(block)));
  const stdout = await runOrFail(
    describeBlock(block),
    [process.execPath, '--conditions=@voice-calls/source', file],
    {
      cwd: session.dir,
      env: {
        ...session.env,
        NODE_EXTRA_CA_CERTS: session.values.get(CERT_PLACEHOLDER),
        VOICE_CALLS_API_KEY: session.values.get('svc_live_...'),
      },
    },
  );
  assert.notEqual(stdout.trim(), '', `${describeBlock(block)} printed nothing`);
  capture(session.values, stdout);
}

const RUNNERS: Record<string, (session: Session, block: DocBlock) => Promise<void>> = {
  sh: runShell,
  ts: runTypeScript,
};

/** `npm start` on a fresh data folder; resolves with its banner once it has printed the demo key. */
async function npmStart(dataDir: string): Promise<{ child: ChildProcess; banner: string }> {
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npm runs the server as a child, and the group is stopped as one.
    detached: true,
  });
  let banner = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      banner += d.toString();
      if (/Try: curl/.test(banner)) resolve();
    });
    child.stdout?.resume();
    child.on('exit', (code) => reject(new Error(`npm start exited ${code} before serving:\n${banner}`)));
  });
  await ready;
  return { child, banner };
}

describe('code blocks of the docs', () => {
  const blocks = allDocBlocks();

  it('every block has a class (a block without one, or with an unknown one, fails)', (t) => {
    const counts = Object.fromEntries(
      BLOCK_CLASSES.map((c) => [c, blocks.filter((b) => b.kind === c).length]),
    );
    t.diagnostic(`${blocks.length} blocks: ${JSON.stringify(counts)}`);
    assert.ok(blocks.length >= 45, `found ${blocks.length} blocks`);
    assert.ok((counts.run ?? 0) >= 10, 'the run blocks are found');
    assert.throws(
      () => parseBlocks('x.md', 'Text\n\n```sh\nnpm start\n```\n'),
      /x\.md:3: a code block without a doc-block class comment/,
    );
    assert.throws(
      () => parseBlocks('x.md', '<!-- doc-block: runs -->\n```sh\nls\n```\n'),
      /unknown class "runs"/,
    );
    assert.throws(() => parseBlocks('x.md', '<!-- doc-block: not-run -->\n```sh\nls\n```\n'), /needs reason/);
    assert.throws(
      () => parseBlocks('x.md', '<!-- doc-block: test -->\n```js\nf()\n```\n'),
      /test needs name/,
    );
    assert.throws(
      () => parseBlocks('x.md', '<!-- doc-block: run -->\nText\n```sh\nls\n```\n'),
      /right before/,
    );
    assert.throws(() => parseBlocks('x.md', '<!-- doc-block: run -->\n```sh\nls\n'), /not closed/);
    assert.throws(
      () => parseBlocks('x.md', '<!-- doc-block: function verify -->\n```js\nconst ok = true;\n```\n'),
      /does not define verify/,
    );
    assert.deepEqual(
      parseBlocks('x.md', '- Item:\n\n  <!-- doc-block: not-run: needs Go -->\n  ```go\n  go run .\n  ```\n'),
      [{ file: 'x.md', line: 4, lang: 'go', code: 'go run .\n', kind: 'not-run', detail: 'needs Go' }],
    );
  });

  it('every block of class test is run by a test that looks it up by its name', () => {
    const named = blocks.filter((b) => b.kind === 'test');
    assert.ok(named.length >= 3, `found ${named.length} test blocks`);
    const sources = ['src', 'sdk/test'].flatMap((folder) =>
      readdirSync(path.join(REPO_ROOT, folder), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => readFileSync(path.join(REPO_ROOT, folder, f), 'utf8')),
    );
    for (const block of named) {
      assert.ok(
        sources.some((s) => s.includes('docBlockNamed(') && s.includes(`'${block.detail}'`)),
        `${describeBlock(block)}: no test looks up '${block.detail}' with docBlockNamed`,
      );
    }
  });

  it('every synopsis names real CLI commands and options (checked against the CLI help)', async () => {
    /** Each command a synopsis names (`webhooks enable|disable` names two), with the options it shows for it. */
    const commands = new Map<string, { options: Set<string>; where: string }>();
    for (const block of blocks.filter((b) => b.kind === 'synopsis')) {
      for (const line of shellCommands(block.code)) {
        const where = `${describeBlock(block)}: ${line.split('\n')[0]}`;
        const [, rest = ''] = /npm run cli -- ([^#]*)/.exec(line.replaceAll('\\\n', ' ')) ?? [];
        assert.ok(rest, `${where} is an operator command`);
        const words = rest.split(/\s+/);
        const firstArgument = words.findIndex((w) => !/^[a-z][a-z|-]*$/.test(w));
        const names = firstArgument < 0 ? words : words.slice(0, firstArgument);
        for (const last of (names.at(-1) ?? '').split('|')) {
          const command = [...names.slice(0, -1), last].join(' ');
          const entry = commands.get(command) ?? { options: new Set(), where };
          for (const option of rest.match(/--[a-z][a-z-]*/g) ?? []) entry.options.add(option);
          commands.set(command, entry);
        }
      }
    }
    assert.ok(commands.size >= 15, `${commands.size} commands in the synopses`);
    for (const [command, { options, where }] of commands) {
      const { stdout } = await run(process.execPath, ['src/main.ts', ...command.split(' '), '--help'], {
        cwd: REPO_ROOT,
      });
      assert.ok(
        stdout.startsWith(`Usage: voice-calls-api ${command} `),
        `${where}: "${command}" is a command`,
      );
      for (const option of options)
        assert.match(stdout, new RegExp(`${option}(?![\\w-])`), `${where}: ${option}`);
    }
  });

  describe('run blocks, as written, against the server of npm start', () => {
    let dataDir = '';
    let shims = '';
    let server: { child: ChildProcess; banner: string };
    const started = new Map<string, string>();

    before(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'vca-docs-'));
      shims = mkdtempSync(path.join(tmpdir(), 'vca-docs-bin-'));
      const [start, ...others] = blocks.filter((b) => b.kind === 'start');
      assert.ok(start && others.length === 0, 'one block starts the server');
      assert.deepEqual(shellCommands(start.code), ['npm install', 'npm start'], describeBlock(start));
      server = await npmStart(dataDir);
      const url = /listening on (https:\/\/[^\s]+)\/api\/v1/.exec(server.banner)?.[1];
      assert.ok(url, server.banner);
      for (const placeholder of SERVER_PLACEHOLDERS) started.set(placeholder, url);
      started.set(CERT_PLACEHOLDER, path.join(dataDir, 'tls', 'cert.pem'));
      capture(started, server.banner);
      assert.ok(started.get('svc_live_...'), 'the demo key');
      const { stdout: curl } = await run('bash', ['-c', 'command -v curl']);
      writeFileSync(path.join(shims, 'curl'), `#!/bin/sh\nexec ${curl.trim()} --fail-with-body "$@"\n`, {
        mode: 0o755,
      });
    });
    after(async () => {
      if (server?.child.pid && server.child.exitCode === null && server.child.signalCode === null) {
        const exited = new Promise((resolve) => server.child.once('exit', resolve));
        process.kill(-server.child.pid, 'SIGTERM');
        await exited;
      }
      for (const dir of [dataDir, shims]) if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const byFile = Map.groupBy(
      blocks.filter((b) => b.kind === 'run'),
      (b) => b.file,
    );
    for (const [file, fileBlocks] of byFile) {
      describe(file, () => {
        let session: Session;
        before(() => {
          const dir = snippetFolder('vca-docs-');
          const state = path.join(dir, 'shell-state');
          writeFileSync(state, '');
          const env: NodeJS.ProcessEnv = {
            ...process.env,
            PATH: `${shims}${path.delimiter}${process.env.PATH}`,
            DATA_DIR: dataDir,
            DATABASE_URL: '',
            REDIS_URL: '',
            KEY: started.get('svc_live_...'),
            CURL_CA_BUNDLE: started.get(CERT_PLACEHOLDER),
            DOCS_STATE: state,
          };
          session = { env, values: new Map(started), dir };
        });
        after(() => rmSync(session.dir, { recursive: true, force: true }));

        for (const block of fileBlocks) {
          it(`${describeBlock(block)} runs`, async () => {
            const runner = RUNNERS[block.lang];
            assert.ok(
              runner,
              `${describeBlock(block)}: no way to run ${block.lang || 'a block with no language'}`,
            );
            await runner(session, block);
          });
        }
      });
    }
  });
});
