import { describeFamilyTable } from './family-table.js';
import { HTTPS_EDGES_TABLE } from './tables/https-edges.js';

describeFamilyTable(HTTPS_EDGES_TABLE);
