// deploy/prometheus's alert rules and Alertmanager configuration as objects, for tests that load them into a real
// Prometheus or Alertmanager with shorter waits than the shipped ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot as root } from '../../tools/project-root.ts';

const dir = join(root, 'deploy', 'prometheus');

interface RuleFile {
  groups: { rules: { alert?: string; for?: string }[] }[];
}

/** alerts.yml as shipped, except each `for:` replaced by `forOf(alert)` (2 s unless told otherwise). */
export function shortRules(forOf: (alert: string) => string = () => '2s'): RuleFile {
  const rules = parse(readFileSync(join(dir, 'alerts.yml'), 'utf8')) as RuleFile;
  for (const group of rules.groups) for (const rule of group.rules) if (rule.for) rule.for = forOf(rule.alert!);
  return rules;
}

interface Route {
  receiver?: string;
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
  routes?: Route[];
}
interface AlertmanagerConfig {
  route: Route;
  receivers: { name: string; webhook_configs: { url: string }[] }[];
}

/**
 * alertmanager.yml as shipped, except every receiver's webhook is `${webhook}/<receiver>`, every wait is a second
 * and the Watchdog repeats every `watchdogRepeat`: routes and inhibition stay as they are.
 */
export function shortAlertmanagerConfig(webhook: string, watchdogRepeat = '2s'): AlertmanagerConfig {
  const config = parse(readFileSync(join(dir, 'alertmanager.yml'), 'utf8')) as AlertmanagerConfig;
  for (const receiver of config.receivers) receiver.webhook_configs = [{ url: `${webhook}/${receiver.name}` }];
  Object.assign(config.route, { group_wait: '1s', group_interval: '1s' });
  for (const route of config.route.routes ?? []) {
    Object.assign(route, { group_wait: '1s', group_interval: '1s' });
    if (route.receiver === 'watchdog') Object.assign(route, { group_wait: '0s', repeat_interval: watchdogRepeat });
  }
  return config;
}
