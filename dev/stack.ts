// `npm start`: the local-stack runner's entry point at its documented path; the runner lives in local-stack/.
import './local-stack/main.ts';
