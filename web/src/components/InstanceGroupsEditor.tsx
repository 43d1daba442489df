// The HyperPod instance groups of the create-cluster wizard: one panel per group (name, type offered in the
// zone, count, threads per core, EBS volume, deep health checks, and under "Fallback, minimum and patching"
// what a group added later takes too), at least one and at most `max`.

import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import Container from '@cloudscape-design/components/container';
import ExpandableSection from '@cloudscape-design/components/expandable-section';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Multiselect from '@cloudscape-design/components/multiselect';
import Select, { type SelectProps } from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';

import type { DeepHealthCheck, FieldErrors, GroupField, InstanceGroupChoices } from '../lib/createCluster';
import { EMPTY_DEPTH, PATCHING, type DepthChoices } from '../lib/groupDepth';
import GroupPatchingStep from './GroupPatchingStep';

export type GroupRow = InstanceGroupChoices & { id: number };

const THREADS: SelectProps.Option[] = [
  { value: '1', label: '1', description: 'Hyperthreading off, as GPU training prefers' },
  { value: '2', label: '2', description: 'Hyperthreading on' },
];

const CHECKS: { check: DeepHealthCheck; label: string }[] = [
  { check: 'InstanceStress', label: 'Instance stress (GPU and accelerator stress tests)' },
  { check: 'InstanceConnectivity', label: 'Instance connectivity (EFA and NCCL tests)' },
];

let nextId = 1;

// The group field a depth choice's errors are kept under (its drain settings are parts of autoPatch).
function depthField(change: Partial<DepthChoices>): GroupField {
  if ('fallbackTypes' in change) return 'instanceTypes';
  if ('minInstanceCount' in change) return 'minInstanceCount';
  if ('imageReleaseVersion' in change) return 'imageReleaseVersion';
  return 'autoPatch';
}

// What the collapsed section says the group has, so a choice made there is seen without opening it.
function depthSummary(group: InstanceGroupChoices): string {
  const parts = [
    group.fallbackTypes?.length ? `then ${group.fallbackTypes.join(', then ')}` : '',
    group.minInstanceCount?.trim() ? `minimum ${group.minInstanceCount}` : '',
    group.patching ? `patching ${PATCHING[group.patching].label.toLowerCase()}` : '',
    group.imageReleaseVersion?.trim() ? `image ${group.imageReleaseVersion}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'None: one type, no minimum, no automatic patching, the latest image';
}

export function newGroup(taken: string[]): GroupRow {
  let name = 'workers';
  for (let n = 2; taken.includes(name); n += 1) name = `workers-${n}`;
  return {
    id: nextId++,
    name,
    instanceType: '',
    instanceCount: '1',
    threadsPerCore: 1,
    ebsVolumeGb: '500',
    deepHealthChecks: { InstanceStress: false, InstanceConnectivity: false },
    ...EMPTY_DEPTH,
  };
}

interface Props {
  groups: GroupRow[];
  onChange: (index: number, change: Partial<InstanceGroupChoices>, field: GroupField) => void;
  onAdd: () => void;
  onRemove: (index: number) => void;
  errors: FieldErrors;
  zone: string;
  typeOptions: SelectProps.Option[];
  typesLoading: boolean;
  max: number;
}

export default function InstanceGroupsEditor({ groups, onChange, onAdd, onRemove, errors, zone, typeOptions, typesLoading, max }: Props) {
  return (
    <SpaceBetween size="m">
      {groups.map((group, index) => {
        const error = (field: GroupField) => errors[`instanceGroups.${index}.${field}`];
        const title = `Instance group ${index + 1}`;
        const numberField = (field: 'instanceCount' | 'ebsVolumeGb', label: string, description?: string) => (
          <FormField label={label} description={description} errorText={error(field)}>
            <Input type="number" inputMode="numeric" value={group[field]} onChange={({ detail }) => onChange(index, { [field]: detail.value }, field)} />
          </FormField>
        );
        return (
          <div role="group" aria-label={title} key={group.id}>
            <Container
              header={
                <Header
                  variant="h3"
                  actions={
                    <Button
                      ariaLabel={`Remove ${title}`}
                      disabled={groups.length === 1}
                      disabledReason="A HyperPod cluster needs at least one instance group."
                      onClick={() => onRemove(index)}
                    >
                      Remove
                    </Button>
                  }
                >
                  {title}
                </Header>
              }
            >
              <SpaceBetween size="l">
                <ColumnLayout columns={3}>
                  <FormField label="Group name" errorText={error('name')} constraintText="Distinct within the cluster.">
                    <Input value={group.name} onChange={({ detail }) => onChange(index, { name: detail.value }, 'name')} />
                  </FormField>
                  <FormField label="Instance type" description={`Offered in ${zone || 'the chosen zone'}.`} errorText={error('instanceType')}>
                    <Select
                      selectedOption={group.instanceType ? { value: group.instanceType, label: group.instanceType } : null}
                      onChange={({ detail }) => onChange(index, { instanceType: detail.selectedOption.value ?? '' }, 'instanceType')}
                      options={typeOptions}
                      placeholder="Choose an instance type"
                      filteringType="auto"
                      statusType={typesLoading ? 'loading' : 'finished'}
                      loadingText="Loading instance types"
                      empty={`No HyperPod instance type is offered in ${zone}`}
                    />
                  </FormField>
                  {numberField('instanceCount', 'Instance count')}
                </ColumnLayout>
                <ColumnLayout columns={3}>
                  <FormField label="Threads per core" errorText={error('threadsPerCore')}>
                    <Select
                      selectedOption={THREADS.find((option) => option.value === String(group.threadsPerCore)) ?? THREADS[0]}
                      onChange={({ detail }) => onChange(index, { threadsPerCore: detail.selectedOption.value === '2' ? 2 : 1 }, 'threadsPerCore')}
                      options={THREADS}
                    />
                  </FormField>
                  {numberField('ebsVolumeGb', 'EBS volume (GiB)', 'Extra volume per node, for images and data.')}
                  <FormField
                    label="Deep health checks"
                    description="Optional; run before instances join, adding time."
                    errorText={error('deepHealthChecks')}
                  >
                    <SpaceBetween size="xxs">
                      {CHECKS.map(({ check, label }) => (
                        <Checkbox
                          key={check}
                          checked={group.deepHealthChecks[check]}
                          onChange={({ detail }) =>
                            onChange(index, { deepHealthChecks: { ...group.deepHealthChecks, [check]: detail.checked } }, 'deepHealthChecks')
                          }
                        >
                          {label}
                        </Checkbox>
                      ))}
                    </SpaceBetween>
                  </FormField>
                </ColumnLayout>
                <ExpandableSection
                  headerText="Fallback, minimum and patching"
                  headerDescription={depthSummary(group)}
                  defaultExpanded={!!(error('instanceTypes') || error('minInstanceCount') || error('autoPatch') || error('imageReleaseVersion'))}
                >
                  <SpaceBetween size="l">
                    <ColumnLayout columns={2}>
                      <FormField
                        label="Fallback instance types"
                        description="Optional: HyperPod tries the instance type first, then these in the order chosen, when a type has no capacity."
                        errorText={error('instanceTypes')}
                      >
                        <Multiselect
                          selectedOptions={(group.fallbackTypes ?? []).map((t) => typeOptions.find((o) => o.value === t) ?? { value: t, label: t })}
                          options={typeOptions.filter((o) => o.value !== group.instanceType)}
                          filteringType="auto"
                          placeholder="None: one instance type"
                          deselectAriaLabel={(option) => `Remove ${option.label ?? option.value}`}
                          statusType={typesLoading ? 'loading' : 'finished'}
                          loadingText="Loading instance types"
                          onChange={({ detail }) => {
                            const fallbackTypes = detail.selectedOptions.map((o) => o.value ?? '').filter(Boolean);
                            onChange(index, { fallbackTypes }, 'instanceTypes');
                          }}
                          ariaLabel={`${group.name || title}: Fallback instance types`}
                        />
                      </FormField>
                      <FormField
                        label="Minimum count"
                        description="Optional: the group is in service once this many run; HyperPod keeps adding the rest."
                        errorText={error('minInstanceCount')}
                      >
                        <Input
                          type="number"
                          inputMode="numeric"
                          value={group.minInstanceCount ?? ''}
                          onChange={({ detail }) => onChange(index, { minInstanceCount: detail.value }, 'minInstanceCount')}
                          ariaLabel={`${group.name || title}: Minimum count`}
                        />
                      </FormField>
                    </ColumnLayout>
                    <GroupPatchingStep
                      form={{ ...EMPTY_DEPTH, ...group }}
                      set={(change) => onChange(index, change, depthField(change))}
                      shown={(field) => (field === 'imageReleaseVersion' ? error('imageReleaseVersion') : field === 'drainTimeoutSeconds' ? error('autoPatch') : undefined)}
                      label={`${group.name || title}: `}
                    />
                  </SpaceBetween>
                </ExpandableSection>
              </SpaceBetween>
            </Container>
          </div>
        );
      })}
      <Button
        iconName="add-plus"
        disabled={groups.length >= max}
        disabledReason={`A HyperPod cluster takes at most ${max} instance groups.`}
        onClick={onAdd}
      >
        Add instance group
      </Button>
    </SpaceBetween>
  );
}
