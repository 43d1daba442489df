// The create-cluster wizard: decision-level questions only (name, Region and zone, HyperPod's instance groups,
// storage); CIDRs, the second zone and the Kubernetes version wait under "Advanced". The Region is fixed for the
// cluster's life; the zones and instance types offered are that Region's.
//
// With "Create a HyperPod cluster" on (the default) it sends POST /api/clusters/provision: the control plane,
// its dependencies, the HyperPod cluster and optionally storage as one operation whose phases the
// operation page shows. Off, it sends POST /api/clusters for the EKS control plane alone.

import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Alert from '@cloudscape-design/components/alert';
import Checkbox from '@cloudscape-design/components/checkbox';
import Container from '@cloudscape-design/components/container';
import ExpandableSection from '@cloudscape-design/components/expandable-section';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Select, { type SelectProps } from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Toggle from '@cloudscape-design/components/toggle';
import Wizard from '@cloudscape-design/components/wizard';

import Breadcrumbs from '../components/Breadcrumbs';
import ErrorAlert from '../components/ErrorAlert';
import InstanceGroupsEditor, { newGroup, type GroupRow } from '../components/InstanceGroupsEditor';
import CreateClusterReview from '../components/CreateClusterReview';
import RegionSelect from '../components/RegionSelect';
import StorageStep from '../components/StorageStep';
import { api, ApiError, type OpenApiDoc } from '../lib/api';
import {
  checkInstanceGroups,
  checkStorage,
  createClusterBody,
  provisionAcceptsStorage,
  provisionClusterBody,
  wizardFieldOf,
  type GroupField,
  type InstanceGroupChoices,
  type StorageChoices,
  type StorageField,
  type WizardField,
} from '../lib/createCluster';
import { arrayBounds, checkString, enumOf, loadSchemas } from '../lib/schema';
import { byInstanceType, instanceTypeOption } from '../lib/instanceTypes';
import type { AvailabilityZoneView, InstanceTypeOfferingView } from '../lib/types';
import { useSession } from '../session';

const MODEL = 'CreateClusterRequest';
const DEFAULT_CIDR = '10.192.0.0/16';
const OPTIONAL_DEPENDENCIES = 'FSx for Lustre CSI driver, Neuron device plugin, KubeRay operator';

const STEP = { name: 0, placement: 1, hyperpod: 2, storage: 3, review: 4 } as const;

interface FormState {
  name: string;
  region: string; // '' = Launchpod's own Region
  zone: string;
  secondZone: string; // '' = chosen automatically
  vpcCidr: string;
  kubernetesVersion: string;
  hyperpod: boolean;
  instanceGroups: GroupRow[];
  nodeRecovery: boolean;
  continuous: boolean; // nodeProvisioningMode Continuous
  includeOptionalDependencies: boolean;
  storageOn: boolean;
  storage: StorageChoices;
}

type Errors = Partial<Record<WizardField | 'form', string>>;

const ADVANCED: WizardField[] = ['secondZone', 'vpcCidr', 'kubernetesVersion'];

// Which step shows each field, so a server error can take the user to it.
function stepOf(field: WizardField): number {
  if (field === 'name') return STEP.name;
  if (field === 'region' || field === 'zone' || ADVANCED.includes(field)) return STEP.placement;
  if (field === 'storage' || field.startsWith('storage.')) return STEP.storage;
  return STEP.hyperpod;
}

export default function CreateClusterPage() {
  const navigate = useNavigate();
  const { notify } = useSession();
  const [step, setStep] = useState(0);
  const [schemas, setSchemas] = useState<OpenApiDoc | null>(null);
  const [homeRegion, setHomeRegion] = useState('');
  const [zones, setZones] = useState<AvailabilityZoneView[] | null>(null);
  const [types, setTypes] = useState<InstanceTypeOfferingView[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [submitError, setSubmitError] = useState<unknown>(null);
  const [submitting, setSubmitting] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const [form, setForm] = useState<FormState>(() => ({
    name: '',
    region: '',
    zone: '',
    secondZone: '',
    vpcCidr: '',
    kubernetesVersion: '', // until the user picks one: the API document's default
    hyperpod: true,
    instanceGroups: [newGroup([])],
    nodeRecovery: true,
    continuous: false,
    includeOptionalDependencies: false,
    storageOn: false,
    storage: { kind: 's3', storageName: '', namespace: 'default', prefix: '', fileSystemId: '' },
  }));

  const clear = (...fields: (WizardField | 'form')[]) =>
    setErrors((current) => ({ ...current, ...Object.fromEntries(fields.map((field) => [field, undefined])) }));

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => {
    setForm((current) => ({ ...current, [key]: value }));
    clear(key as WizardField);
  };

  const setGroup = (index: number, change: Partial<InstanceGroupChoices>, field: GroupField) => {
    setForm((current) => ({
      ...current,
      instanceGroups: current.instanceGroups.map((group, at) => (at === index ? { ...group, ...change } : group)),
    }));
    // a name can clash with another group's, so both names' errors go
    clear(`instanceGroups.${index}.${field}`, 'instanceGroups', ...(field === 'name' ? groupErrors('name') : []));
  };

  const groupErrors = (field?: GroupField): WizardField[] =>
    Object.keys(errors).filter((key) => key.startsWith('instanceGroups.') && (!field || key.endsWith(`.${field}`))) as WizardField[];

  const setStorage = (change: Partial<StorageChoices>, field: StorageField) => {
    setForm((current) => ({ ...current, storage: { ...current.storage, ...change } }));
    clear(`storage.${field}`, 'storage', ...(field === 'kind' ? (['storage.prefix', 'storage.fileSystemId'] as const) : []));
  };

  useEffect(() => {
    void loadSchemas().then(setSchemas);
  }, []);

  // The zones of the Region chosen; a zone picked in another Region is asked again.
  useEffect(() => {
    setZones(null);
    setForm((current) => ({ ...current, zone: '', secondZone: '' }));
    api
      .availabilityZones(undefined, form.region || undefined)
      .then(({ data }) => setZones(data.items))
      .catch(setLoadError);
  }, [form.region]);

  useEffect(() => {
    if (!form.zone) return;
    setTypes(null);
    api
      .instanceTypes(form.zone, form.region || undefined)
      .then(({ data }) => {
        const offered = data.items.filter((item) => item.availabilityZones.length === 0 || item.availabilityZones.includes(form.zone));
        setTypes(offered);
        // A type picked for another zone is not offered here: ask again rather than send it.
        setForm((current) => ({
          ...current,
          instanceGroups: current.instanceGroups.map((group) =>
            !group.instanceType || offered.some((item) => item.instanceType === group.instanceType) ? group : { ...group, instanceType: '' },
          ),
        }));
      })
      .catch(setLoadError);
  }, [form.zone, form.region]);

  const usableZones = useMemo(() => (zones ?? []).filter((zone) => zone.state === 'available'), [zones]);
  const autoSecondZone = usableZones.find((zone) => zone.name !== form.zone)?.name ?? '';
  const secondZone = form.secondZone && form.secondZone !== form.zone ? form.secondZone : autoSecondZone;
  const doc = schemas ?? {};
  // The versions the API accepts (contracts/common.py SUPPORTED_KUBERNETES_VERSIONS, from the pinned manifest).
  const kubernetesVersions = enumOf(doc, MODEL, 'kubernetesVersion');
  const versionFrom = (against: OpenApiDoc) => form.kubernetesVersion || enumOf(against, MODEL, 'kubernetesVersion').default || '';
  const kubernetesVersion = versionFrom(doc);
  const maxGroups = arrayBounds(doc, 'CreateHyperPodRequest', 'instanceGroups').max ?? 20;
  // An API from before storage joined the provision request refuses the field: do not offer it then.
  const storageAccepted = provisionAcceptsStorage(doc);
  const storage = form.hyperpod && form.storageOn && storageAccepted ? form.storage : null;

  const zoneOption = (zone: AvailabilityZoneView): SelectProps.Option => ({
    value: zone.name,
    label: zone.name,
    description: `Zone id ${zone.zoneId}`,
  });

  // The checks need the API's document; a step left before it has loaded waits for it (see loadSchemas).
  async function ready(): Promise<OpenApiDoc> {
    if (schemas) return schemas;
    const loaded = await loadSchemas();
    setSchemas(loaded);
    return loaded;
  }

  function validate(stepIndex: number, doc: OpenApiDoc): Errors {
    const all = stepIndex === STEP.review;
    const found: Errors = {};
    if (all || stepIndex === STEP.name) {
      found.name = checkString(doc, MODEL, 'cluster', form.name);
      if (!form.name) found.name = 'Enter a cluster name.';
    }
    if (all || stepIndex === STEP.placement) {
      if (!form.zone) found.zone = 'Choose an availability zone.';
      const { min } = arrayBounds(doc, MODEL, 'availabilityZones');
      if (form.zone && !secondZone && (min ?? 2) > 1)
        found.secondZone = 'EKS needs a second availability zone, and the catalog offers no other zone.';
      if (form.vpcCidr) found.vpcCidr = checkString(doc, MODEL, 'network.vpcCidr', form.vpcCidr, 'Enter an IPv4 CIDR block, e.g. 10.192.0.0/16.');
      found.kubernetesVersion = checkString(doc, MODEL, 'kubernetesVersion', versionFrom(doc));
    }
    if ((all || stepIndex === STEP.hyperpod) && form.hyperpod) {
      Object.assign(
        found,
        checkInstanceGroups(doc, form.instanceGroups, form.zone, types ? types.map((item) => item.instanceType) : null, form.continuous),
      );
    }
    if ((all || stepIndex === STEP.storage) && storage) {
      Object.assign(found, checkStorage(doc, storage, form.includeOptionalDependencies));
    }
    return Object.fromEntries(Object.entries(found).filter(([, value]) => value)) as Errors;
  }

  function show(found: Errors): boolean {
    setErrors(found);
    const fields = Object.keys(found).filter((key) => key !== 'form') as WizardField[];
    if (fields.some((field) => ADVANCED.includes(field))) setAdvancedOpen(true);
    if (fields.length) setStep(Math.min(...fields.map(stepOf)));
    return fields.length > 0 || !!found.form;
  }

  async function submit() {
    const doc = await ready();
    if (show(validate(STEP.review, doc))) return;
    const choices = { ...form, secondZone, kubernetesVersion: versionFrom(doc) };
    setSubmitting(true);
    setSubmitError(null);
    try {
      const { data } = form.hyperpod
        ? await api.provisionCluster(provisionClusterBody({ ...choices, storage }))
        : await api.createCluster(createClusterBody(choices));
      if (data.status === 'NOOP') {
        notify({ path: `/clusters/${encodeURIComponent(form.name)}`, type: 'info', header: 'No changes', content: data.message && data.message !== 'No changes' ? data.message : `Cluster ${form.name} already matches this request; nothing was started.` });
        navigate(`/clusters/${encodeURIComponent(form.name)}`);
        return;
      }
      notify({
        path: `/operations/${data.operation.id}`,
        type: 'success',
        header: form.hyperpod ? `Provisioning cluster ${form.name}` : `Creating cluster ${form.name}`,
        content: `Operation ${data.operation.id} started.`,
      });
      navigate(`/operations/${data.operation.id}`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) {
        const mapped: Errors = {};
        const unmapped: string[] = [];
        for (const [path, message] of Object.entries(caught.fieldErrors())) {
          const field = wizardFieldOf(path);
          if (field) mapped[field] = mapped[field] ? `${mapped[field]} ${message}` : message;
          else unmapped.push(path ? `${path}: ${message}` : message);
        }
        if (Object.keys(mapped).length) {
          show(mapped);
          if (unmapped.length) setSubmitError(caught);
          return;
        }
      }
      setSubmitError(caught);
    } finally {
      setSubmitting(false);
    }
  }

  const typeOptions: SelectProps.Option[] = [...(types ?? [])].sort(byInstanceType).map(instanceTypeOption);

  const advancedPlacement = (
    <ExpandableSection
      headerText="Advanced"
      expanded={advancedOpen}
      onChange={({ detail }) => setAdvancedOpen(detail.expanded)}
      headerDescription="Second zone, VPC CIDR and Kubernetes version"
    >
      <SpaceBetween size="l">
        <FormField
          label="Second availability zone"
          description="EKS places its control plane in two or more zones. By default the next available zone is used."
          errorText={errors.secondZone}
        >
          <Select
            selectedOption={
              form.secondZone
                ? zoneOption(usableZones.find((zone) => zone.name === form.secondZone) ?? { name: form.secondZone, zoneId: '-', state: '' })
                : { value: '', label: `Automatic (${autoSecondZone || 'none available'})` }
            }
            onChange={({ detail }) => set('secondZone', detail.selectedOption.value ?? '')}
            options={[
              { value: '', label: `Automatic (${autoSecondZone || 'none available'})` },
              ...usableZones.filter((zone) => zone.name !== form.zone).map(zoneOption),
            ]}
          />
        </FormField>
        <FormField
          label="VPC CIDR"
          description={`A new VPC is created with this range; the compute subnet is planned inside it. Default ${DEFAULT_CIDR}.`}
          errorText={errors.vpcCidr}
        >
          <Input value={form.vpcCidr} placeholder={DEFAULT_CIDR} onChange={({ detail }) => set('vpcCidr', detail.value)} />
        </FormField>
        <FormField label="Kubernetes version" errorText={errors.kubernetesVersion}>
          <Select
            selectedOption={kubernetesVersion ? { value: kubernetesVersion, label: kubernetesVersion } : null}
            placeholder="The API's default"
            onChange={({ detail }) => set('kubernetesVersion', detail.selectedOption.value ?? '')}
            options={kubernetesVersions.values.map((version) => ({ value: version, label: version }))}
          />
        </FormField>
      </SpaceBetween>
    </ExpandableSection>
  );

  const nameField = (
    <Container header={<Header variant="h2">Cluster</Header>}>
      <FormField
        label="Cluster name"
        description="Names the EKS cluster and the HyperPod cluster. 1-63 letters, digits and hyphens; starts and ends with a letter or digit."
        constraintText={`${form.name.length}/63 characters`}
        errorText={errors.name}
      >
        <Input value={form.name} placeholder="ml-team-a" onChange={({ detail }) => set('name', detail.value)} />
      </FormField>
    </Container>
  );

  const placement = (
    <Container header={<Header variant="h2" description="Capacity for accelerated instances differs per Region and zone; choose where you have it.">Placement</Header>}>
      <SpaceBetween size="l">
        <RegionSelect value={form.region} onChange={(region) => set('region', region)} onHome={setHomeRegion} errorText={errors.region} />
        <FormField label="Availability zone" description="Where the HyperPod instances run." errorText={errors.zone}>
          <Select
            selectedOption={form.zone ? zoneOption(usableZones.find((zone) => zone.name === form.zone) ?? { name: form.zone, zoneId: '-', state: '' }) : null}
            onChange={({ detail }) => set('zone', detail.selectedOption.value ?? '')}
            options={usableZones.map(zoneOption)}
            placeholder="Choose a zone"
            statusType={zones ? 'finished' : 'loading'}
            loadingText="Loading zones"
            empty="No available zones"
          />
        </FormField>
        {form.zone && secondZone ? (
          <Alert type="info">
            The EKS control plane also uses <b>{secondZone}</b>, because EKS needs two zones. Change it under Advanced.
          </Alert>
        ) : null}
        {advancedPlacement}
      </SpaceBetween>
    </Container>
  );

  const hyperpodStep = (
    <SpaceBetween size="l">
      <Container header={<Header variant="h2">HyperPod</Header>}>
        <Toggle
          checked={form.hyperpod}
          onChange={({ detail }) => {
            set('hyperpod', detail.checked);
            clear('instanceGroups', ...groupErrors());
          }}
          description={
            form.hyperpod
              ? 'One operation creates the EKS control plane, installs its dependencies, then creates the HyperPod cluster below.'
              : 'Only the EKS control plane is created now; add HyperPod to it later.'
          }
        >
          Create a HyperPod cluster
        </Toggle>
      </Container>
      {form.hyperpod ? (
        <>
          <Header
            variant="h2"
            counter={`(${form.instanceGroups.length})`}
            description={`Each group is a set of identical instances in ${form.zone || 'the chosen zone'}.`}
          >
            Instance groups
          </Header>
          {errors.instanceGroups ? (
            <Alert type="error" header="Instance groups">
              {errors.instanceGroups}
            </Alert>
          ) : null}
          <InstanceGroupsEditor
            groups={form.instanceGroups}
            onChange={setGroup}
            onAdd={() => {
              set('instanceGroups', [...form.instanceGroups, newGroup(form.instanceGroups.map((group) => group.name))]);
            }}
            onRemove={(index) => {
              // errors are kept by position: after a removal they would point at the wrong group
              set('instanceGroups', form.instanceGroups.filter((_, at) => at !== index));
              clear(...groupErrors());
            }}
            errors={errors}
            zone={form.zone}
            typeOptions={typeOptions}
            typesLoading={!types}
            max={maxGroups}
          />
          <Container header={<Header variant="h2">Recovery and provisioning</Header>}>
            <SpaceBetween size="l">
              <FormField
                label="Node recovery"
                description="HyperPod's health agent flags faulty GPUs, accelerators and nodes; with automatic recovery HyperPod reboots or replaces them by itself."
                errorText={errors.nodeRecovery}
              >
                <Toggle checked={form.nodeRecovery} onChange={({ detail }) => set('nodeRecovery', detail.checked)}>
                  Automatic node recovery
                </Toggle>
              </FormField>
              <FormField
                label="Provisioning"
                description="HyperPod keeps adding instances as capacity frees up instead of failing, keeps the cluster's events, and lets groups have fallback types, a minimum count and nodes moved between them. Autoscaling (Karpenter) needs it too. It cannot be changed later."
                errorText={errors.continuous}
              >
                <Toggle
                  checked={form.continuous}
                  onChange={({ detail }) => {
                    set('continuous', detail.checked);
                    clear(...groupErrors('instanceTypes'), ...groupErrors('minInstanceCount'));
                  }}
                >
                  Continuous provisioning
                </Toggle>
              </FormField>
              <FormField
                label="Dependencies"
                description="cert-manager, Mountpoint for S3 CSI, metrics-server, the HyperPod health agent and the NVIDIA and EFA device plugins are always installed."
                errorText={errors.includeOptionalDependencies}
              >
                <Checkbox
                  checked={form.includeOptionalDependencies}
                  onChange={({ detail }) => {
                    set('includeOptionalDependencies', detail.checked);
                    clear('storage.kind');
                  }}
                  description={OPTIONAL_DEPENDENCIES}
                >
                  Install optional dependencies
                </Checkbox>
              </FormField>
            </SpaceBetween>
          </Container>
        </>
      ) : null}
    </SpaceBetween>
  );

  const storageUnavailable = !form.hyperpod
    ? 'Storage is mounted as part of provisioning a HyperPod cluster. Turn on "Create a HyperPod cluster" on the previous step to add it here.'
    : !storageAccepted
      ? "This Launchpod API does not take storage with provisioning yet. Add it from the cluster's Storage tab once it is provisioned."
      : null;

  const storageStep = (
    <StorageStep
      choices={form.storage}
      mounted={!!storage}
      unavailable={storageUnavailable}
      errors={errors}
      onMount={(checked) => {
        set('storageOn', checked);
        clear('storage', 'storage.kind', 'storage.storageName', 'storage.namespace', 'storage.prefix', 'storage.fileSystemId');
      }}
      onChange={setStorage}
    />
  );

  const review = (
    <CreateClusterReview
      form={{ ...form, region: form.region || homeRegion, secondZone, kubernetesVersion, storage }}
      optionalDependencies={OPTIONAL_DEPENDENCIES}
      defaultCidr={DEFAULT_CIDR}
      onEdit={(part) => setStep(STEP[part])}
      submitError={submitError}
      onDismissError={() => setSubmitError(null)}
    />
  );

  return (
    <SpaceBetween size="m">
      <Breadcrumbs
        items={[
          { text: 'Clusters', href: '/clusters' },
          { text: 'Create cluster', href: '/clusters/create' },
        ]}
      />
      <ErrorAlert error={loadError} />
      <Wizard
        activeStepIndex={step}
        isLoadingNextStep={submitting}
        allowSkipTo
        onNavigate={({ detail }) => {
          if (detail.requestedStepIndex <= step) {
            setStep(detail.requestedStepIndex);
            return;
          }
          void ready().then((doc) => {
            for (let index = step; index < detail.requestedStepIndex; index += 1) {
              if (show(validate(index, doc))) return;
            }
            setStep(detail.requestedStepIndex);
          });
        }}
        onCancel={() => navigate('/clusters')}
        onSubmit={() => void submit()}
        submitButtonText="Create cluster"
        i18nStrings={{
          stepNumberLabel: (n) => `Step ${n}`,
          collapsedStepsLabel: (n, total) => `Step ${n} of ${total}`,
          skipToButtonLabel: (step) => `Skip to ${step.title}`,
          navigationAriaLabel: 'Steps',
          cancelButton: 'Cancel',
          previousButton: 'Previous',
          nextButton: 'Next',
          optional: 'optional',
        }}
        steps={[
          { title: 'Name the cluster', description: 'The name is used for EKS, HyperPod and every resource Launchpod creates for it.', content: nameField },
          { title: 'Choose a Region and zone', content: placement },
          { title: 'Configure HyperPod', description: 'Instance groups, node recovery and dependencies.', content: hyperpodStep },
          { title: 'Add storage', isOptional: true, content: storageStep },
          { title: 'Review and create', content: review },
        ]}
      />
    </SpaceBetween>
  );
}
