// A rule set (`/rule-sets/<key>`, `/rule-sets/<key>/versions/<n>`: the API's activity links).
import { useParams } from 'react-router';
import { DefinitionView } from './DefinitionView.tsx';
import { useRuleSet } from './queries.ts';

export default function RuleSetPage() {
  const { key = '', version } = useParams();
  return <DefinitionView kind="rule_set" definitionKey={key} version={version} query={useRuleSet(key)} />;
}
