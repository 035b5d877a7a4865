// The MongoDB stand-in's entry point (tests, npm start and the stand-in image run this path): see mongo-standin/.
import './mongo-standin/cli.ts';
