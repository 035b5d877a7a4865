// deploy/prometheus/alertmanager.yml: `amtool check-config` accepts it, `amtool config routes test` sends each alert
// of alerts.yml where its severity says (the Watchdog to its own receiver), the inhibition names alerts that exist,
// and a configuration broken on purpose is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot as root } from '../tools/project-root.ts';
import { amtool, routesTo } from './support/amtool.ts';
import { createScratch } from './support/scratch.ts';

const dir = join(root, 'deploy', 'prometheus');
const config = join(dir, 'alertmanager.yml');
const scratch = createScratch('alertmanager-config-');

interface Rule {
  alert?: string;
  labels?: Record<string, string>;
}
const alerts = (parse(readFileSync(join(dir, 'alerts.yml'), 'utf8')) as { groups: { rules: Rule[] }[] }).groups
  .flatMap((g) => g.rules)
  .filter((r) => r.alert);

test('amtool check-config accepts the configuration: three receivers, one inhibition', () => {
  const { code, stdout, stderr } = amtool(['check-config', config]);
  assert.is(code, 0, stdout + stderr);
  assert.ok(stdout.includes('SUCCESS'), stdout);
  assert.ok(stdout.includes(' - 3 receivers'), stdout);
  assert.ok(stdout.includes(' - 1 inhibit rules'), stdout);
});

test('routes: a page to `page`, a warning to `ticket`, the Watchdog to `watchdog`', () => {
  assert.is(routesTo(config, { alertname: 'ServiceNotReady', severity: 'page', job: 'backend' }), 'page');
  assert.is(routesTo(config, { alertname: 'DeviceBacklogGrowing', severity: 'warn', job: 'device' }), 'ticket');
  assert.is(routesTo(config, { alertname: 'Watchdog', severity: 'none' }), 'watchdog');
  // An alert with no severity at all is not lost: it becomes a ticket.
  assert.is(routesTo(config, { alertname: 'SomethingNew' }), 'ticket');
});

test('every alert of alerts.yml reaches the receiver its severity names', () => {
  const expected: Record<string, string> = { page: 'page', warn: 'ticket', none: 'watchdog' };
  assert.ok(alerts.length >= 7, `${alerts.length} alerts`);
  for (const { alert, labels = {} } of alerts) {
    const receiver = expected[labels.severity ?? ''];
    assert.ok(receiver, `${alert}: severity ${labels.severity} is one of ${Object.keys(expected).join(', ')}`);
    assert.is(routesTo(config, { alertname: alert!, ...labels }), receiver, alert);
  }
});

test('the inhibition: DatabaseNotReady silences the alerts of what depends on the database, all of them real', () => {
  const { inhibit_rules: rules } = parse(readFileSync(config, 'utf8')) as {
    inhibit_rules: { source_matchers: string[]; target_matchers: string[] }[];
  };
  assert.equal(rules[0]!.source_matchers, ['alertname="DatabaseNotReady"']);
  const targets = /^alertname=~"(.+)"$/.exec(rules[0]!.target_matchers[0]!)![1]!.split('|');
  assert.equal(targets.sort(), ['DeviceBacklogGrowing', 'ReadingsNotStored', 'ServiceNotReady']);
  const names = alerts.map((a) => a.alert);
  for (const name of ['DatabaseNotReady', ...targets]) assert.ok(names.includes(name), `${name} is in alerts.yml`);
});

test('a route to a receiver that does not exist is refused, naming it', () => {
  const broken = join(scratch.dir, 'alertmanager.yml');
  writeFileSync(broken, readFileSync(config, 'utf8').replace('receiver: watchdog', 'receiver: watchdgo'));
  const { code, stdout, stderr } = amtool(['check-config', broken]);
  assert.is(code, 1);
  assert.ok((stdout + stderr).includes('"watchdgo"'), stdout + stderr);
});

test.after(() => scratch.remove());
test.run();
