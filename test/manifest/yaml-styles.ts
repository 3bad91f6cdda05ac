import fc from 'fast-check';

/** Every way `yaml`'s stringify writes a document: collection style, string type, key type. */
export const yamlStyles = fc.record({
  collectionStyle: fc.constantFrom('any', 'block', 'flow'),
  defaultStringType: fc.constantFrom(
    'PLAIN',
    'QUOTE_DOUBLE',
    'QUOTE_SINGLE',
    'BLOCK_LITERAL',
    'BLOCK_FOLDED',
  ),
  defaultKeyType: fc.constantFrom(null, 'PLAIN', 'QUOTE_DOUBLE'),
});
