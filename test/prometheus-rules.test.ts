// deploy/prometheus: the alert rules pass `promtool check rules`, their unit tests pass `promtool test rules`, every
// alert has a test, the scrape configuration is valid, and a rule broken on purpose makes the unit tests fail.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot as root } from '../tools/project-root.ts';
import { promtool } from './support/promtool.ts';
import { createScratch } from './support/scratch.ts';

const dir = join(root, 'deploy', 'prometheus');
const rules = join(dir, 'alerts.yml');
const unitTests = join(dir, 'alerts.test.yml');
const scratch = createScratch('prometheus-rules-');

interface RuleFile {
  groups: { rules: { alert?: string }[] }[];
}
const alerts = (parse(readFileSync(rules, 'utf8')) as RuleFile).groups.flatMap((g) =>
  g.rules.flatMap((r) => r.alert ?? []),
);

test('promtool check rules accepts the alert rules (at least the four alerts the contract names)', () => {
  const { code, stdout, stderr } = promtool(['check', 'rules', rules]);
  assert.is(code, 0, stdout + stderr);
  assert.ok(stdout.includes(`SUCCESS: ${alerts.length} rules found`), stdout);
  for (const name of ['ServiceNotReady', 'DeviceBacklogGrowing', 'ReadingsNotStored', 'ScrapeTargetDown', 'Watchdog']) {
    assert.ok(alerts.includes(name), `alert ${name}`);
  }
});

test('promtool test rules passes the unit tests, and every alert has one', () => {
  const { code, stdout, stderr } = promtool(['test', 'rules', unitTests]);
  assert.is(code, 0, stdout + stderr);
  assert.ok(stdout.includes('SUCCESS'), stdout);
  const tested = new Set(
    (parse(readFileSync(unitTests, 'utf8')) as { tests: { alert_rule_test: { alertname: string }[] }[] }).tests.flatMap(
      (t) => t.alert_rule_test.map((a) => a.alertname),
    ),
  );
  assert.equal([...tested].sort(), [...alerts].sort());
});

test('the unit tests fail when an alert waits longer than they expect', () => {
  const { dir } = scratch;
  writeFileSync(join(dir, 'alerts.yml'), readFileSync(rules, 'utf8').replace('for: 5m', 'for: 30m'));
  copyFileSync(unitTests, join(dir, 'alerts.test.yml'));
  const { code, stdout, stderr } = promtool(['test', 'rules', join(dir, 'alerts.test.yml')]);
  assert.is(code, 1);
  assert.ok((stdout + stderr).includes('alertname: ServiceNotReady'), stdout + stderr);
});

test('promtool check config accepts the compose scrape configuration, which sends alerts to the Alertmanager', () => {
  const { code, stdout, stderr } = promtool(['check', 'config', join(dir, 'prometheus.yml')]);
  assert.is(code, 0, stdout + stderr);
  const config = parse(readFileSync(join(dir, 'prometheus.yml'), 'utf8')) as {
    scrape_configs: { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }[];
    alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
  };
  const targets = Object.fromEntries(config.scrape_configs.map((s) => [s.job_name, s.static_configs[0]!.targets]));
  assert.equal(targets, {
    backend: ['backend:9464'],
    device: ['device:3003'],
    frontend: ['frontend:9466'],
    prometheus: ['localhost:9090'],
  });
  assert.equal(config.alerting.alertmanagers[0]!.static_configs[0]!.targets, ['alertmanager:9093']);
});

test("the README's host commands write a configuration promtool accepts, watching the stack's published ports", () => {
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const block = /## Running them beside the stack[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
  // Up to the configuration written; the servers themselves are what test/prometheus.test.ts runs.
  const setup = block.slice(0, block.indexOf('prometheus --config.file'));
  assert.ok(setup.includes('sed '), setup);
  const cwd = join(scratch.dir, 'host');
  mkdirSync(cwd);
  symlinkSync(join(root, 'deploy'), join(cwd, 'deploy'));
  const run = spawnSync('bash', ['-euo', 'pipefail', '-c', setup], { cwd, encoding: 'utf8', timeout: 30_000 });
  assert.is(run.status, 0, run.stderr);
  const written = join(cwd, '.tmp', 'prometheus', 'prometheus.yml');
  const { code, stdout, stderr } = promtool(['check', 'config', written]);
  assert.is(code, 0, stdout + stderr);
  const config = parse(readFileSync(written, 'utf8')) as {
    scrape_configs: { static_configs: { targets: string[] }[] }[];
    alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
  };
  assert.equal(
    config.scrape_configs.map((s) => s.static_configs[0]!.targets[0]),
    ['127.0.0.1:9464', '127.0.0.1:3003', '127.0.0.1:9466', 'localhost:9090'],
  );
  assert.equal(config.alerting.alertmanagers[0]!.static_configs[0]!.targets, ['127.0.0.1:9093']);
});

test.after(() => scratch.remove());
test.run();
