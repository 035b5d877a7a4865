// The Dockerfile, parsed with dockerfile-ast: Node 24 base, production-only install, non-root service targets,
// the compiled health check, curl for the frontend's check, and a build context holding what each service imports.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDockerfile, chain, targetSteps, type Stage, type Step } from './infra/dockerfile-stages.ts';
import { importGraph } from './infra/import-graph.ts';
import { createDockerignore } from './infra/dockerignore.ts';
import { root } from './infra/compile-healthcheck.ts';

const dockerfile = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const isIgnored = createDockerignore(readFileSync(join(root, '.dockerignore'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; optional?: boolean }>;
};

const SERVICES = { backend: 3001, device: 3003, frontend: 3000 } as const;
type Service = keyof typeof SERVICES;
/** What a service runs besides main.ts's imports: the modules its worker threads start with. */
const THREADS: Partial<Record<Service, string[]>> = { backend: ['backend/device-thread/device-worker.ts'] };
/** Every file and package a service's threads import. */
const serviceGraph = (service: string) => {
  const graphs = [`${service}/main.ts`, ...(THREADS[service as Service] ?? [])].map((entry) =>
    importGraph(root, entry),
  );
  const union = (pick: (graph: (typeof graphs)[number]) => string[]) => [...new Set(graphs.flatMap(pick))];
  return { files: union((g) => g.files), missing: union((g) => g.missing), packages: union((g) => g.packages) };
};
/** Production dependencies no service imports, loaded by one that is imported: package → who loads it, and why. */
const LOADED_BY_DEPENDENCY: Record<string, { by: string; why: string }> = {
  bufferutil: { by: 'ws', why: 'unmasks the frames devices send natively, off the thread that answers probes' },
};

/** Packages a shipped file requires when first needed, which an import graph does not see, with the file. */
const LOADED_LATER: Record<string, { in: string; why: string }> = {
  'pino-pretty': { in: 'lib/logger.ts', why: "local mode's readable lines, loaded at the first line written" },
};

const stage = (name: string): Stage => {
  const found = dockerfile.stages.get(name);
  if (!found) throw new Error(`Dockerfile has no stage "${name}" (has: ${[...dockerfile.stages.keys()].join(', ')})`);
  return found;
};
const stepsOf = (target: string): Step[] => targetSteps(dockerfile, target);
const only = <T>(items: T[], what: string): T => {
  assert.is(items.length, 1, `exactly one ${what}, found ${items.length}`);
  return items[0]!;
};
const healthcheck = (target: Service) =>
  only(
    stepsOf(target).filter((s) => s.keyword === 'HEALTHCHECK'),
    `HEALTHCHECK in ${target}`,
  );
/** COPY steps of a target as { source, destination, from }. */
const copies = (target: string) =>
  stepsOf(target)
    .filter((s) => s.keyword === 'COPY')
    .flatMap((s) =>
      s.args.slice(0, -1).map((source) => ({ source, destination: s.args.at(-1)!, from: s.flags.from ?? null })),
    );

test(
  'every stage starts from node:24-slim (the current LTS) or an earlier stage; ' +
    'no syntax directive, so BuildKit builds offline',
  () => {
    // `# syntax=docker/dockerfile:1` makes BuildKit fetch a frontend image from Docker Hub before building.
    assert.is(dockerfile.directives.syntax, undefined);
    assert.not.match(readFileSync(join(root, 'Dockerfile'), 'utf8'), /^#\s*syntax\s*=/im);
    assert.is(dockerfile.globalArgs.NODE_IMAGE, 'node:24-slim');
    const seen: string[] = [];
    for (const [name, { from }] of dockerfile.stages) {
      assert.ok(from === '${NODE_IMAGE}' || seen.includes(from), `stage ${name} starts from ${from}`);
      seen.push(name);
    }
  },
);

test(
  'one target per service, each built on the shared base ' + '(the backend and device through their shared check)',
  () => {
    assert.equal(
      chain(dockerfile, 'backend').map((s) => s.name),
      ['backend', 'node-checked', 'base'],
    );
    assert.equal(
      chain(dockerfile, 'device').map((s) => s.name),
      ['device', 'node-checked', 'base'],
    );
    assert.equal(
      chain(dockerfile, 'frontend').map((s) => s.name),
      ['frontend', 'base'],
    );
  },
);

const depsInstall = () =>
  only(
    stage('deps').steps.filter((s) => s.keyword === 'RUN' && s.args.includes('ci')),
    'npm ci in deps',
  );

test('service images get production dependencies only: npm ci --omit=dev, and nothing else from node_modules', () => {
  const install = depsInstall();
  assert.ok(install.args.includes('--omit=dev'), install.args.join(' '));
  for (const service of Object.keys(SERVICES)) {
    const modules = copies(service).filter((c) => c.source.includes('node_modules'));
    assert.equal(modules, [{ source: '/app/node_modules', destination: './node_modules', from: 'deps' }]);
    // Nothing from the build stage (which has dev dependencies) but the compiled check.
    for (const c of copies(service).filter((c) => c.from === 'build')) assert.is(c.source, '/app/dist/healthcheck.cjs');
  }
});

test(
  "the smoke's puppeteer-core stays out of the images: an optional dependency of the package, " +
    'which the deps stage leaves out with --omit=optional, and no production dependency is optional',
  () => {
    const install = depsInstall();
    assert.ok(install.args.includes('--omit=optional'), install.args.join(' '));
    // npm installs optional dependencies by default: installing the package brings the smoke's browser driver.
    assert.equal(Object.keys(pkg.optionalDependencies ?? {}), ['puppeteer-core']);
    assert.is(lock.packages['node_modules/puppeteer-core']?.optional, true, 'puppeteer-core is optional in the lock');
    for (const name of Object.keys(pkg.dependencies)) {
      const entry = lock.packages[`node_modules/${name}`];
      assert.ok(entry, `${name} is in the lock file`);
      assert.not.ok(entry.optional || entry.dev, `${name} is a plain production dependency in the lock file`);
    }
  },
);

test('each service runs as the non-root node user, set after every RUN', () => {
  for (const service of Object.keys(SERVICES)) {
    const steps = stepsOf(service);
    const users = steps.map((s, i) => ({ s, i })).filter(({ s }) => s.keyword === 'USER');
    assert.ok(users.length > 0, `${service} sets USER`);
    const last = users.at(-1)!;
    assert.equal(last.s.args, ['node']);
    const lastRun = steps.map((s) => s.keyword).lastIndexOf('RUN');
    assert.ok(last.i > lastRun, `${service}: USER node comes after the last RUN`);
  }
});

test('each service takes RELEASE_ID as a build argument into its environment, after every RUN and COPY', () => {
  for (const service of Object.keys(SERVICES)) {
    const steps = stepsOf(service);
    const arg = steps.findIndex((s) => s.keyword === 'ARG' && s.args[0] === 'RELEASE_ID');
    const env = steps.findIndex((s) => s.keyword === 'ENV' && s.args[0] === 'RELEASE_ID=${RELEASE_ID}');
    assert.ok(arg >= 0 && env > arg, `${service}: ARG RELEASE_ID, then ENV RELEASE_ID=\${RELEASE_ID}`);
    // A new release must not rebuild the dependencies or the apt layer: only what follows the ARG is redone.
    const heavy = steps.map((s) => s.keyword).findLastIndex((k) => k === 'RUN' || k === 'COPY');
    assert.ok(arg > heavy, `${service}: the ARG comes after the last RUN and COPY`);
  }
});

test('each service starts with node <service>/main.ts (Node 24 strips the types; no tsx) on its default port', () => {
  for (const [service, port] of Object.entries(SERVICES)) {
    const steps = stepsOf(service);
    assert.equal(
      only(
        steps.filter((s) => s.keyword === 'CMD'),
        `CMD in ${service}`,
      ).exec,
      ['node', `${service}/main.ts`],
    );
    assert.equal(
      steps.filter((s) => s.keyword === 'EXPOSE').map((s) => s.args),
      [[String(port)]],
    );
    assert.ok(
      steps.some((s) => s.keyword === 'ENV' && s.args.includes(`PORT=${port}`)),
      `${service} sets PORT=${port}`,
    );
  }
});

test('backend HEALTHCHECK: the contract values, running the compiled check with plain node', () => {
  const check = healthcheck('backend');
  assert.equal(check.flags, {
    interval: '30s',
    timeout: '10s',
    'start-period': '60s',
    'start-interval': '0.5s',
    retries: '3',
  });
  assert.equal(check.exec, ['node', '/app/healthcheck.cjs']);
  // The file it runs is the build stage's output of `npm run build:healthcheck`, compiled to CommonJS.
  assert.ok(
    copies('backend').some(
      (c) => c.from === 'build' && c.source === '/app/dist/healthcheck.cjs' && c.destination === './healthcheck.cjs',
    ),
  );
  assert.ok(stage('build').steps.some((s) => s.keyword === 'RUN' && s.args.join(' ') === 'npm run build:healthcheck'));
  assert.ok(stage('build').steps.some((s) => s.keyword === 'COPY' && s.args[0] === 'healthcheck.ts'));
  const script = pkg.scripts['build:healthcheck'] ?? '';
  assert.match(script, /--module commonjs\b/);
  assert.match(script, /--outDir dist healthcheck\.ts && mv dist\/healthcheck\.js dist\/healthcheck\.cjs$/);
  assert.equal(
    stage('base')
      .steps.filter((s) => s.keyword === 'WORKDIR')
      .map((s) => s.args),
    [['/app']],
  );
});

test('tsx and esbuild stay out of the images: development dependencies, which npm ci --omit=dev leaves out', () => {
  for (const name of ['tsx', 'esbuild'])
    assert.not.ok(name in pkg.dependencies, `${name} is not a production dependency`);
  assert.ok('tsx' in pkg.devDependencies, 'tsx stays for Node 20 (node --import tsx) and the tests');
  for (const name of ['node_modules/tsx', 'node_modules/esbuild'])
    assert.is(lock.packages[name]?.dev, true, `${name} is dev-only in the lock file`);
});

test(
  'frontend HEALTHCHECK: curl -fsS -o /dev/null http://localhost:3000 (a quiet health log) ' +
    'with a 40 s start period, and curl is installed',
  () => {
    const check = healthcheck('frontend');
    assert.equal(check.flags, {
      interval: '30s',
      timeout: '10s',
      'start-period': '40s',
      'start-interval': '0.5s',
      retries: '3',
    });
    assert.equal(check.exec, ['curl', '-fsS', '-o', '/dev/null', 'http://localhost:3000']);
    const install = stepsOf('frontend').find(
      (s) => s.keyword === 'RUN' && s.args.includes('apt-get') && s.args.includes('install'),
    );
    assert.ok(install?.args.includes('curl'), 'apt-get install ... curl');
  },
);

test('device: the same compiled check (it follows PORT), and the node user may open serial devices', () => {
  assert.equal(healthcheck('device').exec, ['node', '/app/healthcheck.cjs']);
  assert.ok(stepsOf('device').some((s) => s.keyword === 'RUN' && s.args.join(' ') === 'usermod -aG dialout node'));
});

test("device: the spool is a volume at the default DEVICE_SPOOL_DIR (WORKDIR's ./spool) that node may write", () => {
  const steps = stepsOf('device');
  const workdir = steps.filter((s) => s.keyword === 'WORKDIR').at(-1)?.args[0];
  assert.is(workdir, '/app');
  assert.equal(
    steps.filter((s) => s.keyword === 'VOLUME').map((s) => s.args),
    [['/app/spool']],
  );
  const run = steps.find((s) => s.keyword === 'RUN' && s.args.includes('/app/spool'));
  assert.is(run?.args.join(' '), 'mkdir /app/spool && chown node:node /app/spool');
  assert.ok(steps.indexOf(run!) < steps.findIndex((s) => s.keyword === 'VOLUME'), 'made before it is a volume');
  for (const service of ['backend', 'frontend']) {
    assert.not.ok(
      stepsOf(service).some((s) => s.keyword === 'VOLUME'),
      `${service} has no volume`,
    );
  }
});

test('each image holds every file its service imports, and every package it imports is a production dependency', () => {
  for (const service of Object.keys(SERVICES)) {
    const copied = copies(service)
      .filter((c) => c.from === null)
      .map((c) => c.source);
    const graph = serviceGraph(service);
    assert.ok(graph.files.length > 3, `${service}: found its imports (${graph.files.length})`);
    assert.equal(graph.missing, [], `${service} imports files that do not exist`);
    for (const file of graph.files) {
      assert.ok(
        copied.some((source) => file === source || file.startsWith(`${source}/`)),
        `${service} imports ${file}, which no COPY brings in`,
      );
      assert.not.ok(isIgnored(file), `${service} imports ${file}, which .dockerignore leaves out`);
    }
    for (const name of graph.packages) {
      assert.ok(name in pkg.dependencies, `${service} imports ${name}, which npm ci --omit=dev would not install`);
    }
  }
});

test(
  'every production dependency is one a service imports: ' + 'tools (smoke, dev, tests) keep theirs out of the images',
  () => {
    const imported = new Set(Object.keys(SERVICES).flatMap((service) => serviceGraph(service).packages));
    for (const name of Object.keys(pkg.dependencies)) {
      const loader = LOADED_BY_DEPENDENCY[name]?.by;
      const later = LOADED_LATER[name]?.in;
      const requiredLater = later !== undefined && readFileSync(join(root, later), 'utf8').includes(`('${name}')`);
      assert.ok(
        imported.has(name) || (loader !== undefined && imported.has(loader)) || requiredLater,
        `${name} is a production dependency no service imports: make it a devDependency`,
      );
    }
  },
);

test('every lib/ file is imported by a service: what the tools share lives in tools/, not in lib/', () => {
  const imported = new Set(Object.keys(SERVICES).flatMap((service) => importGraph(root, `${service}/main.ts`).files));
  const shipped = readdirSync(join(root, 'lib'))
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => `lib/${name}`);
  assert.ok(shipped.includes('lib/readiness.ts'), 'lib/ was listed');
  // The kit's entry point (package.json `exports`) is the one exception, and it may only re-export what ships.
  const kit = importGraph(root, 'lib/index.ts').files.filter((path) => path !== 'lib/index.ts');
  assert.equal(
    kit.filter((path) => !imported.has(path)),
    [],
    'the kit exports a module no service imports',
  );
  assert.equal(
    shipped.filter((path) => path !== 'lib/index.ts' && !imported.has(path)),
    [],
    'in lib/ but imported by no service (a tool-only module belongs in tools/)',
  );
});

test('.dockerignore leaves out whole folders, never a single file of lib/', () => {
  const rules = readFileSync(join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/^!/, '').replace(/^\/+/, ''))
    .filter((line) => line !== '' && !line.startsWith('#'));
  assert.ok(rules.includes('tools'), 'tools/ is left out');
  assert.equal(
    rules.filter((rule) => rule.startsWith('lib/')),
    [],
    'rules naming files under lib/',
  );
});

test('.dockerignore keeps local state and tests out of the build context, and keeps the sources in', () => {
  for (const path of [
    'node_modules/hono/package.json',
    '.git/HEAD',
    '.env',
    '.env.production',
    '.tmp/x',
    'dist/healthcheck.cjs',
    'spool/readings-000000000001.spool',
    'lib/env.test.ts',
    'test/run.ts',
    'tools/child-process.ts',
  ]) {
    assert.ok(isIgnored(path), `${path} is left out`);
  }
  for (const path of [
    'package.json',
    'package-lock.json',
    'healthcheck.ts',
    'lib/env.ts',
    'backend/main.ts',
    'frontend/public/index.html',
  ]) {
    assert.not.ok(isIgnored(path), `${path} is sent`);
  }
});

test.run();
