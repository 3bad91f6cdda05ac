import { describeFamilyTable } from './family-table.js';
import { CERTIFICATE_AUTHORITIES_TABLE } from './tables/certificate-authorities.js';

describeFamilyTable(CERTIFICATE_AUTHORITIES_TABLE);
