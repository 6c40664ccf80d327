// The static checks of `npm test`, as their own step rather than jest tests under a timeout:
// the compiler in strict mode, ESLint (eslint.config.js), Prettier's check (.prettierrc.json), and
// the shape of the house: no import cycles, no two files of one name, and docs/architecture.md's
// map true to the tree.
// Each runs whole and lists every finding; the process exits 1 if any check found something.
// `npm run format` fixes formatting.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';

const root = resolve(import.meta.dirname, '..');
/** The folders `npm run format` formats and Prettier's check covers. */
const FORMATTED = ['lambdas', 'lib', 'bin', 'local', 'test', 'bench', 'console'];

/**
 * tsc on the whole program: jest's transform strips each file's types and checks none. The
 * console (console/) is a browser program of its own, with the DOM's types and not Node's.
 */
async function types() {
  const check = (project) =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', project],
        { cwd: root, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout) => done(error ? stdout.split('\n').filter(Boolean) : []),
      );
    });
  return (await Promise.all([check('tsconfig.json'), check('console/tsconfig.json')])).flat();
}

async function lint() {
  const results = await new ESLint({ cwd: root }).lintFiles(['.']);
  const linted = results.map((result) => relative(root, result.filePath));
  // A config whose ignores swallowed everything would pass silently: this very file must be linted.
  if (!linted.includes('bin/static-checks.mjs')) return ['eslint did not lint bin/static-checks.mjs'];
  return results.flatMap((result) =>
    result.messages.map(
      (m) =>
        `${relative(root, result.filePath)}:${m.line}:${m.column} ${m.severity === 2 ? 'error' : 'warning'} ` +
        `${m.message} (${m.ruleId ?? 'eslint'})`,
    ),
  );
}

/** The repository's source files (tracked, or new and not ignored) under `folders`. */
function sourceFiles(folders) {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...folders], { cwd: root })
    .toString()
    .split('\n')
    .filter((file) => /\.(ts|tsx|mts|mjs|js)$/.test(file) && existsSync(resolve(root, file)));
}

async function format() {
  const files = sourceFiles(FORMATTED);
  if (!files.includes('bin/static-checks.mjs')) return ['the format check did not see bin/static-checks.mjs'];
  const unformatted = [];
  for (const file of files) {
    const path = resolve(root, file);
    const options = await prettier.resolveConfig(path);
    if (!(await prettier.check(await readFile(path, 'utf8'), { ...options, filepath: path })))
      unformatted.push(`${file} is not formatted (npm run format)`);
  }
  return unformatted;
}

/** The import edges between the repository's own modules, type-only ones included. */
async function importGraph() {
  const files = sourceFiles(FORMATTED).filter((file) => !file.endsWith('.d.mts'));
  const known = new Set(files);
  const edges = new Map();
  const specifier = /\b(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;
  for (const file of files) {
    const text = await readFile(resolve(root, file), 'utf8');
    const targets = new Set();
    for (const [, spec] of text.matchAll(specifier)) {
      const base = relative(root, resolve(root, dirname(file), spec));
      // The console's modules are imported without an extension, as its bundler resolves them.
      const target = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, `${base}.tsx`].find((candidate) =>
        known.has(candidate),
      );
      if (target) targets.add(target);
    }
    edges.set(file, [...targets]);
  }
  return edges;
}

/**
 * Every import between the repository's own modules, type-only ones included, forms no cycle: a
 * cycle makes two modules one unit that neither can be read, tested or moved without the other.
 */
async function cycles() {
  const edges = await importGraph();
  return stronglyConnected(edges)
    .filter((component) => component.length > 1 || edges.get(component[0]).includes(component[0]))
    .map((component) => `import cycle: ${component.sort().join(' <-> ')}`);
}

/**
 * docs/architecture.md matches the tree: it names every folder of source files (test/unit's
 * folders mirror lambdas/ and are named as a group), its table has one row per folder of
 * lambdas/, and every import between those folders is one the row of the importer allows.
 */
async function map() {
  const doc = await readFile(resolve(root, 'docs/architecture.md'), 'utf8');
  const findings = [];
  const folders = new Set(sourceFiles(FORMATTED).map((file) => dirname(file)));
  for (const folder of folders) {
    if (folder.startsWith('test/unit/')) continue;
    const last = folder.split('/').pop();
    if (!doc.includes('`' + folder + '/`') && !doc.includes('`' + last + '/`'))
      findings.push(`docs/architecture.md does not name the folder ${folder}/`);
  }
  const allowed = new Map();
  for (const [, folder, imports] of doc.matchAll(/^\| `([a-z-]+)\/` +\|[^|\n]*\| ([^|\n]+?) +\|$/gm))
    allowed.set(folder, imports === 'any' ? 'any' : new Set([...imports.matchAll(/`([a-z/-]+)`/g)].map((m) => m[1])));
  const layers = new Set([...folders].filter((f) => /^lambdas\/[^/]+$/.test(f)).map((f) => f.split('/')[1]));
  for (const layer of layers)
    if (!allowed.has(layer)) findings.push(`docs/architecture.md has no row for lambdas/${layer}/`);
  for (const layer of allowed.keys())
    if (!layers.has(layer))
      findings.push(`docs/architecture.md has a row for a folder that is not there: lambdas/${layer}/`);
  const folderOf = (file) =>
    file.startsWith('lambdas/') ? file.split('/')[1] : file === 'lib/routes.ts' ? 'lib/routes' : undefined;
  for (const [file, targets] of await importGraph()) {
    const from = folderOf(file);
    if (from === undefined || !file.startsWith('lambdas/')) continue;
    const may = allowed.get(from);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === undefined || to === from || may === 'any') continue;
      if (!may?.has(to))
        findings.push(`${file} imports ${target}: lambdas/${from}/ may not import ${to} (docs/architecture.md)`);
    }
  }
  return findings;
}

/** Tarjan's strongly connected components, iterative (no recursion depth to run out of). */
function stronglyConnected(edges) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    onStack.add(node);
  };
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    visit(start);
    const work = [{ node: start, next: 0 }];
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = edges.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (!index.has(target)) {
          visit(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node), index.get(target)));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node), low.get(frame.node)));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      components.push(component);
    }
  }
  return components;
}

/** No two source files share a name, so a name met in a log, a trace or a review is one file. */
async function names() {
  const byName = new Map();
  for (const file of sourceFiles(FORMATTED)) byName.set(basename(file), [...(byName.get(basename(file)) ?? []), file]);
  return [...byName.values()]
    .filter((paths) => paths.length > 1)
    .map((paths) => `one name, two files: ${paths.join(', ')}`);
}

/**
 * The README and docs name only paths that exist: a renamed or moved file leaves no stale
 * directions behind (a glob such as `video-*.ts` is not checked; a module may be named without
 * its extension; a file the repository ignores, which a command generates, need not exist yet).
 * Their relative links lead to files of the repository: a reader of a clone or of the hosted
 * repository follows them, and a link out of the tree leads nowhere there.
 */
async function paths() {
  const docs = [
    'README.md',
    ...readdirSync(resolve(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const findings = [];
  const mention =
    /(?<![\w./-])((?:lambdas|lib|local|test|bench|bin|console)\/[A-Za-z0-9_./-]*[A-Za-z0-9_/])(?![*\w-])/g;
  const link = /\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g;
  for (const doc of docs) {
    const text = await readFile(resolve(root, doc), 'utf8');
    for (const [, path] of text.matchAll(mention)) {
      const bare = resolve(root, path.replace(/\/$/, ''));
      if (existsSync(bare) || existsSync(`${bare}.ts`) || isGenerated(path)) continue;
      findings.push(`${doc} names ${path}, which is not there`);
    }
    for (const [, target] of text.matchAll(link)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // a web address, not a file
      const file = resolve(root, dirname(doc), target);
      if (!relative(root, file).startsWith('..') && existsSync(file)) continue;
      findings.push(`${doc} links ${target}, which is not a file of the repository`);
    }
  }
  return [...new Set(findings)];
}

/** A file the repository ignores because a command makes it (the local runtime's bundle). */
function isGenerated(path) {
  try {
    execFileSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: root });
    return true;
  } catch {
    return false;
  }
}

const checks = { types, lint, format, cycles, names, map, paths };
let failed = false;
// Two at a time at most: the compiler in its own process, lint and format on this one's thread.
const outcomes = await Promise.all(
  Object.entries(checks).map(async ([name, check]) => {
    const started = performance.now();
    const findings = await check();
    return { name, findings, seconds: ((performance.now() - started) / 1000).toFixed(1) };
  }),
);
for (const { name, findings, seconds } of outcomes) {
  if (findings.length === 0) console.log(`static check ${name}: passed (${seconds} s)`);
  else {
    failed = true;
    console.error(`static check ${name}: ${findings.length} finding(s)\n  ${findings.join('\n  ')}`);
  }
}
process.exit(failed ? 1 : 0);
