import { runEdgesyncInProcess } from '../support/edgesync-cli.js';
import { describeVariantScenarios } from './variant-scenarios.js';

/** The commands' logic against each variant, in this process: the same command lines and exit codes as the binary. */
describeVariantScenarios(
  'edgesync against each variant of what the family does not document',
  runEdgesyncInProcess,
);
