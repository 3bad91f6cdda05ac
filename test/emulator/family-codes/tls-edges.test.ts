import { describeFamilyTable } from './family-table.js';
import { TLS_EDGES_TABLE } from './tables/tls-edges.js';

describeFamilyTable(TLS_EDGES_TABLE);
