import { describeFamilyTable } from './family-table.js';
import { HTTPS_EDGE_ROUTES_TABLE } from './tables/https-edge-routes.js';

describeFamilyTable(HTTPS_EDGE_ROUTES_TABLE);
