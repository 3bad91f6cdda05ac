import { describeFamilyTable } from './family-table.js';
import { API_WIDE_TABLE } from './tables/api-wide.js';

describeFamilyTable(API_WIDE_TABLE);
