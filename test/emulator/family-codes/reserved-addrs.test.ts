import { describeFamilyTable } from './family-table.js';
import { RESERVED_ADDRS_TABLE } from './tables/reserved-addrs.js';

describeFamilyTable(RESERVED_ADDRS_TABLE);
