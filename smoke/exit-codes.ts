// The smoke CLI's exit codes; an error that stops the run is a CLIError (tools/cli-error.ts) and exits EXIT_ERROR.
import { EXIT_USAGE } from '../tools/cli-error.ts';

export const EXIT_PASS = 0;
export const EXIT_FAIL = 1;
/** The run itself could not happen: bad arguments or settings, Chromium missing, an unwritable report… */
export const EXIT_ERROR = EXIT_USAGE;
