import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The fenced code blocks of the documentation and what each one is. Every block carries its class in an HTML
 * comment on the line before it (invisible once rendered), so a new block without one fails the docs test:
 *
 *   <!-- doc-block: run -->                 runs as written, in the order of its document (src/doc-blocks.test.ts)
 *   <!-- doc-block: start -->               npm install, npm start: the server the run blocks talk to
 *   <!-- doc-block: function verify -->     defines that function; a test calls it (verify: real deliveries)
 *   <!-- doc-block: verify-handler -->      the body of a node:http request listener (req, res) that verifies
 *   <!-- doc-block: verify-statements -->   verifying statements given secret, req, headers, rawBody
 *   <!-- doc-block: synopsis -->            command reference ([optional], a|b, <placeholders>): checked
 *                                           against the CLI's own help
 *   <!-- doc-block: output -->              what a command or request prints
 *   <!-- doc-block: diagram -->             a picture or a file tree, not code
 *   <!-- doc-block: not-run: <reason> -->   cannot run in the unit suite, and why
 *   <!-- doc-block: test <name> -->         run by the test that looks it up by this name (docBlockNamed), where
 *                                           the docs test cannot: a fresh project with the packed SDK installed
 */
export const BLOCK_CLASSES = [
  'run',
  'start',
  'function',
  'verify-handler',
  'verify-statements',
  'synopsis',
  'output',
  'diagram',
  'not-run',
  'test',
] as const;
export type BlockClass = (typeof BLOCK_CLASSES)[number];

export type DocBlock = {
  /** Relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`sh`, `ts`, `python`…), or '' for none. */
  lang: string;
  code: string;
  kind: BlockClass;
  /** The function name (`function`), the reason (`not-run`) or the name a test finds it by (`test`). */
  detail: string;
};

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The Markdown a user reads: README.md, docs/*.md and sdk/README.md. */
export function docFiles(): string[] {
  const docs = readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs, 'sdk/README.md'];
}

const CLASS_RE = /^\s*<!--\s*doc-block:\s*([a-z-]+)(?::?\s+(.*?))?\s*-->\s*$/;
const FENCE_RE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;

function classOf(comment: string, where: string): { kind: BlockClass; detail: string } {
  const [, name = '', detail = ''] = CLASS_RE.exec(comment) ?? [];
  const kind = BLOCK_CLASSES.find((c) => c === name);
  if (!kind) throw new Error(`${where}: unknown class "${name}" (one of ${BLOCK_CLASSES.join(', ')})`);
  const needsDetail = kind === 'not-run' || kind === 'function' || kind === 'test';
  if (needsDetail !== (detail !== '')) {
    throw new Error(
      `${where}: ${kind} ${needsDetail ? 'needs' : 'takes no'} ${kind === 'not-run' ? 'reason' : 'name'}`,
    );
  }
  return { kind, detail };
}

/**
 * Every fenced block of one Markdown text, with its class. Throws, naming the line, for a block without a
 * class comment right before it, an unknown class, a class comment with no block after it, or an unclosed fence.
 */
export function parseBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let pending: { comment: string; line: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (CLASS_RE.test(text) || /^\s*<!--\s*doc-block/.test(text)) {
      pending = { comment: text, line: i + 1 };
      continue;
    }
    const fence = FENCE_RE.exec(text);
    if (!fence) {
      if (pending && text.trim() !== '') {
        throw new Error(`${file}:${pending.line}: a doc-block comment must come right before its block`);
      }
      continue;
    }
    const [, indent = '', marker = '', lang = ''] = fence;
    if (!pending)
      throw new Error(`${file}:${i + 1}: a code block without a doc-block class comment before it`);
    const { kind, detail } = classOf(pending.comment, `${file}:${pending.line}`);
    const closing = new RegExp(`^\\s*${marker[0]}{${marker.length},}\\s*$`);
    const end = lines.findIndex((l, j) => j > i && closing.test(l));
    if (end < 0) throw new Error(`${file}:${i + 1}: the block is not closed`);
    const code = lines
      .slice(i + 1, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
      .join('\n');
    if (kind === 'function' && !new RegExp(`\\b(function|def|const)\\s+${detail}\\b`).test(code)) {
      throw new Error(`${file}:${i + 1}: the block does not define ${detail}`);
    }
    blocks.push({ file, line: i + 1, lang, code: `${code}\n`, kind, detail });
    pending = null;
    i = end;
  }
  if (pending) throw new Error(`${file}:${pending.line}: a doc-block comment with no block after it`);
  return blocks;
}

/** Every block of every document, in reading order. */
export const allDocBlocks = (): DocBlock[] =>
  docFiles().flatMap((file) => parseBlocks(file, readFileSync(path.join(REPO_ROOT, file), 'utf8')));

/** The one block of class `test <name>` in the docs; throws when there is none or more than one. */
export function docBlockNamed(name: string): DocBlock {
  const found = allDocBlocks().filter((b) => b.kind === 'test' && b.detail === name);
  const [block] = found;
  if (!block || found.length > 1) throw new Error(`${found.length} doc blocks named "${name}", not one`);
  return block;
}

/** A block's code with each placeholder replaced by its value; throws for a placeholder the block lacks. */
export function fillBlock(block: DocBlock, values: Record<string, string>): string {
  let code = block.code;
  for (const [placeholder, value] of Object.entries(values)) {
    if (!code.includes(placeholder)) throw new Error(`${block.file}:${block.line} has no ${placeholder}`);
    code = code.replaceAll(placeholder, value);
  }
  return code;
}

export const describeBlock = (b: DocBlock): string => `${b.file}:${b.line} (${b.lang || 'no language'})`;

/**
 * A temporary project folder for snippets: ES modules, and this repository's node_modules, so
 * `@voice-calls/sdk` resolves as it does here (to sdk/, with `--conditions=@voice-calls/source`, as README says)
 * and `standardwebhooks` as in a project that installed it.
 */
export function snippetFolder(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return dir;
}
