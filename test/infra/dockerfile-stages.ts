// Reads a Dockerfile with dockerfile-ast into named stages of plain instructions, for the Dockerfile tests.
import { DockerfileParser, type Instruction } from 'dockerfile-ast';

export interface Step {
  keyword: string;
  /** Words after the keyword and its flags, as written. */
  args: string[];
  /** --name=value flags (COPY --from, HEALTHCHECK --interval...). */
  flags: Record<string, string | null>;
  /** The exec (JSON) form of CMD, or of HEALTHCHECK's CMD; undefined for the shell form. */
  exec?: string[];
}

export interface Stage {
  name: string;
  /** The image or earlier stage it starts from, as written (e.g. `${NODE_IMAGE}` or `base`). */
  from: string;
  steps: Step[];
}

export interface ParsedDockerfile {
  directives: Record<string, string>;
  /** ARGs before the first FROM, name → default value. */
  globalArgs: Record<string, string>;
  stages: Map<string, Stage>;
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const file = DockerfileParser.parse(text);
  const directives = Object.fromEntries(file.getDirectives().map((d) => [d.getName(), d.getValue()]));
  const globalArgs = Object.fromEntries(
    file.getInitialARGs().map((a) => [a.getProperty()?.getName() ?? '', a.getProperty()?.getValue() ?? '']),
  );
  const stages = new Map<string, Stage>();
  let current: Stage | undefined;
  for (const instruction of file.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const words = instruction.getArguments().map((a) => a.getValue());
      current = { name: words[2] ?? `#${stages.size}`, from: words[0] ?? '', steps: [] };
      stages.set(current.name, current);
    } else if (current) {
      current.steps.push(toStep(keyword, instruction));
    }
  }
  return { directives, globalArgs, stages };
}

function toStep(keyword: string, instruction: Instruction): Step {
  const flagged = instruction as Instruction & { getFlags?: () => { getName(): string; getValue(): string | null }[] };
  const flags = Object.fromEntries((flagged.getFlags?.() ?? []).map((f) => [f.getName(), f.getValue()]));
  const args = instruction.getArguments().map((a) => a.getValue());
  const step: Step = { keyword, args, flags };
  // CMD ["a", "b"] and HEALTHCHECK ... CMD ["a", "b"]: the words after CMD, rejoined, are JSON.
  const json =
    keyword === 'CMD' ? args.join(' ') : keyword === 'HEALTHCHECK' && args[0] === 'CMD' ? args.slice(1).join(' ') : '';
  if (json.startsWith('[')) step.exec = JSON.parse(json) as string[];
  return step;
}

/** The stage and the stages it is built on, nearest first (e.g. backend, base). */
export function chain(parsed: ParsedDockerfile, name: string): Stage[] {
  const stages: Stage[] = [];
  for (let stage = parsed.stages.get(name); stage; stage = parsed.stages.get(stage.from)) stages.push(stage);
  return stages;
}

/** Every step a target runs, from the bottom of its chain up, in build order (inherited HEALTHCHECK included). */
export function targetSteps(parsed: ParsedDockerfile, target: string): Step[] {
  return chain(parsed, target)
    .reverse()
    .flatMap((stage) => stage.steps);
}
