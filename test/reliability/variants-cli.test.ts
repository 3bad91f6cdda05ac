import { describeVariantScenarios } from '../emulator/variant-scenarios.js';
import { runEdgesyncProcess } from '../support/edgesync-cli.js';

/** The variant scenarios with edgesync as a process (about 70 s on a loaded machine: too slow for `npm test`). */
describeVariantScenarios(
  'edgesync, as a process, against each variant of what the family does not document',
  runEdgesyncProcess,
);
