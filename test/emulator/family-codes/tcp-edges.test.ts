import { describeFamilyTable } from './family-table.js';
import { TCP_EDGES_TABLE } from './tables/tcp-edges.js';

describeFamilyTable(TCP_EDGES_TABLE);
