// What of a stack is still there, as the Engine DOCKER_HOST names sees it, in one line: for the error of a removal
// that did not finish, so that it says what it waited on instead of only "not met".
import { docker } from './swarm.ts';

const label = (name: string) => `label=com.docker.stack.namespace=${name}`;

/** One docker listing's lines joined with ", ", or its error; '' when it lists nothing. */
async function listing(args: string[]): Promise<string> {
  const result = await docker(args, 20_000);
  // `docker stack ps` of a stack with no service left fails so.
  if (/nothing found in stack/i.test(result.stderr)) return '';
  if (result.code !== 0) return `(${args.slice(0, 2).join(' ')} failed: ${result.stderr.trim().split('\n')[0]})`;
  return result.stdout.split('\n').filter(Boolean).join(', ');
}

/** e.g. `containers: shk-x_lb.1.abc Exited (137) 2 minutes ago task tq1; networks: shk-x_default overlay`. */
export async function stackLeftovers(name: string): Promise<string> {
  const parts: [string, string[]][] = [
    [
      'containers',
      [
        'ps',
        '-a',
        '--filter',
        label(name),
        '--format',
        '{{.Names}} {{.Status}} task {{.Label "com.docker.swarm.task.id"}}',
      ],
    ],
    ['networks', ['network', 'ls', '--filter', label(name), '--format', '{{.Name}} {{.Driver}} {{.Scope}}']],
    ['services', ['service', 'ls', '--filter', label(name), '--format', '{{.Name}} {{.Replicas}}']],
    [
      'tasks',
      ['stack', 'ps', name, '--no-trunc', '--format', '{{.Name}} {{.Node}} {{.DesiredState}} {{.CurrentState}}'],
    ],
  ];
  const lines = await Promise.all(parts.map(async ([what, args]) => [what, await listing(args)] as const));
  return lines.map(([what, line]) => `${what}: ${line || 'none'}`).join('; ');
}
