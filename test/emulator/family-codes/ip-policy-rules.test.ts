import { describeFamilyTable } from './family-table.js';
import { IP_POLICY_RULES_TABLE } from './tables/ip-policy-rules.js';

describeFamilyTable(IP_POLICY_RULES_TABLE);
