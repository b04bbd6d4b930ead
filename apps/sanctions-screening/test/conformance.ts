// The conformance setup `app test apps/sanctions-screening` reads: a match API double and one sample
// per entity type. The test suite runs the same setup through checkConformance.
import {
  type ConformanceSetup,
  startVendorDouble,
  type VendorRequest,
} from '../../../packages/app-testing/src/index.ts';

export const API_KEY = 'os-test-key-5f1c9a';

/** A match answer: a close result for a person, a weak one for a company. */
export function matchAnswer(request: VendorRequest) {
  const query = (JSON.parse(request.body) as { queries: { q1: { schema: string } } }).queries.q1;
  const person = query.schema === 'Person';
  return {
    json: {
      responses: {
        q1: {
          status: 200,
          results: [
            {
              id: person ? 'Q7747' : 'NK-acme',
              caption: person ? 'Vladimir Putin' : 'Acme Trading LLC',
              schema: query.schema,
              score: person ? 0.93 : 0.41,
              match: person,
              datasets: person ? ['eu_fsf', 'us_ofac_sdn'] : ['ru_nsd_isin'],
              properties: { name: [person ? 'Vladimir Putin' : 'Acme Trading LLC'] },
            },
          ],
          total: { value: 1, relation: 'eq' },
        },
      },
    },
  };
}

export default async function setup(): Promise<ConformanceSetup> {
  const vendor = await startVendorDouble([{ method: 'POST', path: '/match/:dataset', respond: matchAnswer }]);
  return {
    config: { baseUrl: vendor.url, dataset: 'default', threshold: 0.7 },
    secrets: { API_KEY },
    samples: [
      {
        name: 'screen a person',
        action: 'screen',
        input: { entityType: 'person', name: 'Vladimir Putin', birthDate: '1952-10-07', nationality: 'ru' },
      },
      {
        name: 'screen a company',
        action: 'screen',
        input: {
          entityType: 'company',
          name: 'Acme Trading LLC',
          country: 'cy',
          registrationNumber: 'HE123456',
        },
      },
    ],
    close: () => vendor.close(),
  };
}
