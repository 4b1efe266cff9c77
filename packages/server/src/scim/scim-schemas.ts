import { z } from 'zod';
import type { FilterAttributes } from './scim-filter.js';

/**
 * The resource types' attributes, declared once (RFC 7643 §4 and §8.7.1): `/Schemas` shows them,
 * a body is checked against them (names matched without case, unknown ones refused, sizes
 * bounded), and a filter may name them (scim-filter.ts).
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued: boolean;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'writeOnly' | 'immutable';
  returned: 'always' | 'default' | 'never';
  uniqueness: 'none' | 'server';
  subAttributes?: Attribute[];
}

type Options = Partial<Omit<Attribute, 'name' | 'type' | 'subAttributes'>>;

const text = (name: string, options: Options = {}): Attribute => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...options,
});
const flag = (name: string, options: Options = {}): Attribute => ({ ...text(name, options), type: 'boolean' });
const ref = (name: string, options: Options = {}): Attribute => ({ ...text(name, options), type: 'reference' });
const complex = (name: string, subAttributes: Attribute[], options: Options = {}): Attribute => ({
  ...text(name, options),
  type: 'complex',
  subAttributes,
});
/** A multi-valued attribute of the usual `value`, `display`, `type`, `primary` (RFC 7643 §2.4). */
const plural = (name: string, extra: Attribute[] = []): Attribute =>
  complex(name, [text('value'), text('display'), text('type'), flag('primary'), ...extra], { multiValued: true });

const USER_ATTRIBUTES: Attribute[] = [
  text('userName', { required: true, uniqueness: 'server' }),
  complex('name', [
    text('formatted'),
    text('familyName'),
    text('givenName'),
    text('middleName'),
    text('honorificPrefix'),
    text('honorificSuffix'),
  ]),
  text('displayName'),
  text('nickName'),
  ref('profileUrl'),
  text('title'),
  text('userType'),
  text('preferredLanguage'),
  text('locale'),
  text('timezone'),
  flag('active'),
  text('password', { mutability: 'writeOnly', returned: 'never', caseExact: true }),
  plural('emails'),
  plural('phoneNumbers'),
  plural('ims'),
  plural('photos'),
  complex(
    'addresses',
    [
      text('formatted'),
      text('streetAddress'),
      text('locality'),
      text('region'),
      text('postalCode'),
      text('country'),
      text('type'),
      flag('primary'),
    ],
    { multiValued: true },
  ),
  complex('groups', [text('value'), ref('$ref'), text('display'), text('type')], {
    multiValued: true,
    mutability: 'readOnly',
  }),
  plural('entitlements'),
  plural('roles'),
  plural('x509Certificates'),
];

const ENTERPRISE_ATTRIBUTES: Attribute[] = [
  text('employeeNumber'),
  text('costCenter'),
  text('organization'),
  text('division'),
  text('department'),
  complex('manager', [text('value'), ref('$ref'), text('displayName', { mutability: 'readOnly' })]),
];

const GROUP_ATTRIBUTES: Attribute[] = [
  text('displayName', { required: true, uniqueness: 'server' }),
  complex('members', [text('value', { mutability: 'immutable' }), ref('$ref'), text('display'), text('type')], {
    multiValued: true,
  }),
];

/** What every resource has (RFC 7643 §3.1): `id` and `meta` are the server's, `externalId` the client's. */
const COMMON = {
  id: text('id', { caseExact: true, mutability: 'readOnly' }),
  externalId: text('externalId', { caseExact: true }),
};

const schemaOf = (id: string, name: string, description: string, attributes: Attribute[]) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
  id,
  name,
  description,
  attributes,
  meta: { resourceType: 'Schema', location: `/Schemas/${id}` },
});

/** The `/Schemas` answer's resources (RFC 7643 §7; `location` is made absolute by the routes). */
export const SCHEMA_DOCUMENTS = [
  schemaOf(USER_SCHEMA, 'User', 'User Account', USER_ATTRIBUTES),
  schemaOf(ENTERPRISE_SCHEMA, 'EnterpriseUser', 'Enterprise User', ENTERPRISE_ATTRIBUTES),
  schemaOf(GROUP_SCHEMA, 'Group', 'Group', GROUP_ATTRIBUTES),
];

/** The largest text of an attribute, and the most values of a multi-valued one. */
const TEXT_MAX = 2048;
const VALUES_MAX = 100;
/** Members in one body: an identity provider sends a large group in several PATCH requests. */
const MEMBERS_MAX = 10_000;

/** Entra ID sends `"True"` and `"False"` in PATCH values (docs/users.md, "SCIM"): read as the booleans they mean. */
const BOOLEAN = z.union([
  z.boolean(),
  z.enum(['True', 'False', 'true', 'false']).transform((v) => v.toLowerCase() === 'true'),
]);

function zodOf(attribute: Attribute): z.ZodType {
  const single =
    attribute.type === 'boolean'
      ? BOOLEAN
      : attribute.type === 'complex'
        ? objectOf(attribute.subAttributes ?? [])
        : z.string().max(TEXT_MAX);
  if (!attribute.multiValued) return single;
  return z.array(single).max(attribute.name === 'members' ? MEMBERS_MAX : VALUES_MAX);
}

function objectOf(attributes: Attribute[]): z.ZodType {
  return z.strictObject(Object.fromEntries(attributes.map((a) => [a.name, zodOf(a).optional()])));
}

/**
 * The canonical spelling of each key of a body (attribute names are not case-sensitive, RFC 7643
 * §2.1): the body with its names as declared, unknown names left as they came (the schema refuses them).
 */
function canonical(value: unknown, attributes: readonly Attribute[]): unknown {
  if (Array.isArray(value)) return value.map((v) => canonical(v, attributes));
  if (typeof value !== 'object' || value === null) return value;
  const byLower = new Map(attributes.map((a) => [a.name.toLowerCase(), a]));
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      const found = byLower.get(key.toLowerCase());
      return found ? [found.name, canonical(v, found.subAttributes ?? [])] : [key, v];
    }),
  );
}

export interface ResourceType {
  name: 'User' | 'Group';
  endpoint: string;
  schema: string;
  extensions: readonly string[];
  /** The body's attributes checked, names in their declared case; throws a zod error. */
  read(body: unknown): Record<string, unknown>;
  filter: FilterAttributes;
}

function resourceType(
  name: ResourceType['name'],
  schema: string,
  attributes: Attribute[],
  extensions: Record<string, Attribute[]>,
): ResourceType {
  const all = [
    COMMON.id,
    COMMON.externalId,
    text('schemas', { multiValued: true }),
    complex('meta', [text('resourceType'), text('created'), text('lastModified'), text('location'), text('version')]),
    ...attributes,
    ...Object.entries(extensions).map(([urn, extension]) => complex(urn, extension)),
  ];
  const body = z.strictObject({
    ...Object.fromEntries(all.map((a) => [a.name, zodOf(a).optional()])),
    schemas: z.array(z.string().max(200)).min(1).max(10),
  });
  const names = new Set<string>();
  const caseExact = new Set<string>();
  const list = (attribute: Attribute, prefix: string) => {
    const full = `${prefix}${attribute.name.toLowerCase()}`;
    if (attribute.mutability !== 'writeOnly') names.add(full);
    if (attribute.caseExact) caseExact.add(full);
    for (const sub of attribute.subAttributes ?? []) list(sub, `${full}.`);
  };
  for (const attribute of [COMMON.id, COMMON.externalId, ...attributes]) list(attribute, '');
  for (const meta of ['meta.created', 'meta.lastmodified']) names.add(meta);
  return {
    name,
    endpoint: `/${name}s`,
    schema,
    extensions: Object.keys(extensions),
    read: (input) => body.parse(canonical(input, all)) as Record<string, unknown>,
    filter: { schema, names, caseExact },
  };
}

export const USER_TYPE = resourceType('User', USER_SCHEMA, USER_ATTRIBUTES, {
  [ENTERPRISE_SCHEMA]: ENTERPRISE_ATTRIBUTES,
});
export const GROUP_TYPE = resourceType('Group', GROUP_SCHEMA, GROUP_ATTRIBUTES, {});

/** The `/ResourceTypes` answer's resources (RFC 7643 §6). */
export const RESOURCE_TYPE_DOCUMENTS = [USER_TYPE, GROUP_TYPE].map((type) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: type.name,
  name: type.name,
  endpoint: type.endpoint,
  schema: type.schema,
  schemaExtensions: type.extensions.map((schema) => ({ schema, required: false })),
  meta: { resourceType: 'ResourceType', location: `/ResourceTypes/${type.name}` },
}));
