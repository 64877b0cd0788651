// `npm start`'s command as package.json writes it, for what must start the server exactly as operators do (the
// bench, the reliability suite, the npm-start test): the environment set before `node` (`NAME=value` words), Node's
// flags, and the script with its arguments.
import fs from 'node:fs';
import path from 'node:path';

export type StartCommand = {
  env: Record<string, string>;
  flags: string[];
  /** The script's path as written (relative to the package's folder). */
  script: string;
  scriptArgs: string[];
};

export function npmStartCommand(root: string): StartCommand {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start?: string };
  };
  const words = (scripts.start ?? '').split(/\s+/);
  const node = words.indexOf('node');
  const at = words.findIndex((w) => /\.[jt]s$/.test(w));
  return {
    env: Object.fromEntries(words.slice(0, node).map((w) => w.split('=', 2) as [string, string])),
    flags: words.slice(node + 1, at),
    script: words[at] ?? '',
    scriptArgs: words.slice(at + 1),
  };
}
