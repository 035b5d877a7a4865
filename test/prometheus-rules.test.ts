// deploy/prometheus: the alert rules pass `promtool check rules`, their unit tests pass `promtool test rules`, every
// alert has a test, the scrape configuration is valid, and a rule broken on purpose makes the unit tests fail.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
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
  for (const name of ['ServiceNotReady', 'DeviceBacklogGrowing', 'ReadingsNotStored', 'ScrapeTargetDown']) {
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

test('promtool check config accepts the compose scrape configuration', () => {
  const { code, stdout, stderr } = promtool(['check', 'config', join(dir, 'prometheus.yml')]);
  assert.is(code, 0, stdout + stderr);
  const config = parse(readFileSync(join(dir, 'prometheus.yml'), 'utf8')) as {
    scrape_configs: { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }[];
  };
  const targets = Object.fromEntries(config.scrape_configs.map((s) => [s.job_name, s.static_configs[0]!.targets]));
  assert.equal(targets, { backend: ['backend:9464'], device: ['device:3003'] });
});

test.after(() => scratch.remove());
test.run();
