// The create-cluster wizard: decision-level questions only (name, zone, instance type, count, capacity
// type); CIDRs, the second zone and deep health checks wait under "Advanced".
//
// Today POST /api/clusters creates the EKS control plane; the compute choices are kept in the form and
// shown on the review step, to be applied by the HyperPod step that follows. The request model forbids
// extra fields, so only the fields it knows are sent.

import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Alert from '@cloudscape-design/components/alert';
import BreadcrumbGroup from '@cloudscape-design/components/breadcrumb-group';
import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import Container from '@cloudscape-design/components/container';
import ExpandableSection from '@cloudscape-design/components/expandable-section';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import RadioGroup from '@cloudscape-design/components/radio-group';
import Select, { type SelectProps } from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Wizard from '@cloudscape-design/components/wizard';

import ErrorAlert from '../components/ErrorAlert';
import { api, ApiError, type OpenApiDoc } from '../lib/api';
import { createClusterBody, wizardFieldOf, type WizardField } from '../lib/createCluster';
import { arrayBounds, checkString, loadSchemas } from '../lib/schema';
import type { AvailabilityZoneView, InstanceTypeOfferingView } from '../lib/types';
import { useSession } from '../session';

const MODEL = 'CreateClusterRequest';
const KUBERNETES_VERSIONS = ['1.33', '1.32', '1.31'];
const DEFAULT_CIDR = '10.192.0.0/16';

type CapacityType = 'on-demand' | 'spot' | 'training-plan';
const CAPACITY_LABELS: Record<CapacityType, string> = {
  'on-demand': 'On-Demand',
  spot: 'Spot',
  'training-plan': 'Training plan (reserved)',
};

interface FormState {
  name: string;
  zone: string;
  instanceType: string;
  instanceCount: string;
  capacityType: CapacityType;
  secondZone: string; // '' = chosen automatically
  vpcCidr: string;
  kubernetesVersion: string;
  deepHealthChecks: { InstanceStress: boolean; InstanceConnectivity: boolean };
}

type Field = WizardField;
type Errors = Partial<Record<Field | 'form', string>>;

// Which step shows each field, so a server error can take the user to it.
const STEP_OF: Record<Field, number> = {
  name: 0,
  zone: 1,
  secondZone: 1,
  vpcCidr: 1,
  kubernetesVersion: 1,
  instanceType: 2,
  instanceCount: 2,
};
const ADVANCED: Field[] = ['secondZone', 'vpcCidr', 'kubernetesVersion'];

export default function CreateClusterPage() {
  const navigate = useNavigate();
  const { notify } = useSession();
  const [step, setStep] = useState(0);
  const [schemas, setSchemas] = useState<OpenApiDoc | null>(null);
  const [zones, setZones] = useState<AvailabilityZoneView[] | null>(null);
  const [types, setTypes] = useState<InstanceTypeOfferingView[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [submitError, setSubmitError] = useState<unknown>(null);
  const [submitting, setSubmitting] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const [form, setForm] = useState<FormState>({
    name: '',
    zone: '',
    instanceType: '',
    instanceCount: '1',
    capacityType: 'on-demand',
    secondZone: '',
    vpcCidr: '',
    kubernetesVersion: '1.32',
    deepHealthChecks: { InstanceStress: false, InstanceConnectivity: false },
  });

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => {
    setForm((current) => ({ ...current, [key]: value }));
    setErrors((current) => ({ ...current, [key]: undefined }));
  };

  useEffect(() => {
    void loadSchemas().then(setSchemas);
    api
      .availabilityZones()
      .then(({ data }) => setZones(data.items))
      .catch(setLoadError);
  }, []);

  useEffect(() => {
    if (!form.zone) return;
    setTypes(null);
    api
      .instanceTypes(form.zone)
      .then(({ data }) => {
        const offered = data.items.filter((item) => item.zones.length === 0 || item.zones.includes(form.zone));
        setTypes(offered);
        // A type picked for another zone is not offered here: ask again rather than send it.
        setForm((current) =>
          offered.some((item) => item.instanceType === current.instanceType) ? current : { ...current, instanceType: '' },
        );
      })
      .catch(setLoadError);
  }, [form.zone]);

  const usableZones = useMemo(() => (zones ?? []).filter((zone) => zone.state === 'available'), [zones]);
  const autoSecondZone = usableZones.find((zone) => zone.name !== form.zone)?.name ?? '';
  const secondZone = form.secondZone && form.secondZone !== form.zone ? form.secondZone : autoSecondZone;

  const zoneOption = (zone: AvailabilityZoneView): SelectProps.Option => ({
    value: zone.name,
    label: zone.name,
    description: `Zone id ${zone.zoneId}`,
  });

  function validate(stepIndex: number): Errors {
    const found: Errors = {};
    const doc = schemas ?? {};
    if (stepIndex === 0 || stepIndex === 3) {
      found.name = checkString(doc, MODEL, 'name', form.name);
      if (!form.name) found.name = 'Enter a cluster name.';
    }
    if (stepIndex === 1 || stepIndex === 3) {
      if (!form.zone) found.zone = 'Choose an availability zone.';
      const { min } = arrayBounds(doc, MODEL, 'availabilityZones');
      if (form.zone && !secondZone && (min ?? 2) > 1)
        found.secondZone = 'EKS needs a second availability zone, and the catalog offers no other zone.';
      if (form.vpcCidr) found.vpcCidr = checkString(doc, MODEL, 'network.vpcCidr', form.vpcCidr, 'Enter an IPv4 CIDR block, e.g. 10.192.0.0/16.');
      found.kubernetesVersion = checkString(doc, MODEL, 'kubernetesVersion', form.kubernetesVersion);
    }
    if (stepIndex === 2 || stepIndex === 3) {
      if (!form.instanceType) found.instanceType = `Choose an instance type offered in ${form.zone || 'the zone'}.`;
      const count = Number(form.instanceCount);
      if (!/^\d+$/.test(form.instanceCount) || count < 1) found.instanceCount = 'Enter a whole number of instances, 1 or more.';
    }
    return Object.fromEntries(Object.entries(found).filter(([, value]) => value)) as Errors;
  }

  function show(found: Errors): boolean {
    setErrors(found);
    const fields = Object.keys(found).filter((key) => key !== 'form') as Field[];
    if (fields.some((field) => ADVANCED.includes(field))) setAdvancedOpen(true);
    if (fields.length) setStep(Math.min(...fields.map((field) => STEP_OF[field])));
    return fields.length > 0 || !!found.form;
  }

  async function submit() {
    if (show(validate(3))) return;
    const body = createClusterBody({ ...form, secondZone });
    setSubmitting(true);
    setSubmitError(null);
    try {
      const { data } = await api.createCluster(body);
      if (data.status === 'NOOP') {
        notify({ path: `/clusters/${encodeURIComponent(form.name)}`, type: 'info', header: 'No changes', content: data.message && data.message !== 'No changes' ? data.message : `Cluster ${form.name} already matches this request; nothing was started.` });
        navigate(`/clusters/${encodeURIComponent(form.name)}`);
        return;
      }
      notify({ path: `/operations/${data.operation.id}`, type: 'success', header: `Creating cluster ${form.name}`, content: `Operation ${data.operation.id} started.` });
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

  const typeOptions: SelectProps.Option[] = (types ?? []).map((item) => ({
    value: item.instanceType,
    label: item.instanceType,
    tags: item.zones.length ? [`${item.zones.length} zone${item.zones.length > 1 ? 's' : ''}`] : undefined,
  }));

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
            selectedOption={{ value: form.kubernetesVersion, label: form.kubernetesVersion }}
            onChange={({ detail }) => set('kubernetesVersion', detail.selectedOption.value ?? '1.32')}
            options={KUBERNETES_VERSIONS.map((version) => ({ value: version, label: version }))}
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
    <Container header={<Header variant="h2" description="Capacity for accelerated instances differs per zone; choose where you have it.">Placement</Header>}>
      <SpaceBetween size="l">
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

  const compute = (
    <Container header={<Header variant="h2" description={`Instance types offered in ${form.zone || 'the chosen zone'}.`}>Compute</Header>}>
      <SpaceBetween size="l">
        <FormField label="Instance type" errorText={errors.instanceType}>
          <Select
            selectedOption={form.instanceType ? { value: form.instanceType, label: form.instanceType } : null}
            onChange={({ detail }) => set('instanceType', detail.selectedOption.value ?? '')}
            options={typeOptions}
            placeholder="Choose an instance type"
            filteringType="auto"
            statusType={types ? 'finished' : 'loading'}
            loadingText="Loading instance types"
            empty={`No HyperPod instance type is offered in ${form.zone}`}
          />
        </FormField>
        <FormField label="Instance count" errorText={errors.instanceCount}>
          <Input type="number" inputMode="numeric" value={form.instanceCount} onChange={({ detail }) => set('instanceCount', detail.value)} />
        </FormField>
        <FormField label="Capacity type">
          <RadioGroup
            value={form.capacityType}
            onChange={({ detail }) => set('capacityType', detail.value as CapacityType)}
            items={[
              { value: 'on-demand', label: CAPACITY_LABELS['on-demand'], description: 'Pay by the hour; subject to available capacity in the zone.' },
              { value: 'spot', label: CAPACITY_LABELS.spot, description: 'Spare capacity at a discount; instances can be reclaimed.' },
              { value: 'training-plan', label: CAPACITY_LABELS['training-plan'], description: 'Capacity reserved ahead through a SageMaker training plan.' },
            ]}
          />
        </FormField>
        <ExpandableSection headerText="Advanced" headerDescription="Deep health checks">
          <FormField label="Deep health checks" description="Run before instances join; they add time to creation.">
            <SpaceBetween size="xs">
              <Checkbox
                checked={form.deepHealthChecks.InstanceStress}
                onChange={({ detail }) => set('deepHealthChecks', { ...form.deepHealthChecks, InstanceStress: detail.checked })}
              >
                Instance stress (GPU and accelerator stress tests)
              </Checkbox>
              <Checkbox
                checked={form.deepHealthChecks.InstanceConnectivity}
                onChange={({ detail }) => set('deepHealthChecks', { ...form.deepHealthChecks, InstanceConnectivity: detail.checked })}
              >
                Instance connectivity (EFA and NCCL tests)
              </Checkbox>
            </SpaceBetween>
          </FormField>
        </ExpandableSection>
      </SpaceBetween>
    </Container>
  );

  const checks = Object.entries(form.deepHealthChecks).filter(([, on]) => on).map(([name]) => name);
  const review = (
    <SpaceBetween size="l">
      <Container header={<Header variant="h2" actions={<Button onClick={() => setStep(0)}>Edit</Button>}>Cluster</Header>}>
        <KeyValuePairs columns={2} items={[{ label: 'Name', value: form.name || '-' }, { label: 'Kubernetes version', value: form.kubernetesVersion }]} />
      </Container>
      <Container header={<Header variant="h2" actions={<Button onClick={() => setStep(1)}>Edit</Button>}>Placement and network</Header>}>
        <KeyValuePairs
          columns={3}
          items={[
            { label: 'Availability zone', value: form.zone || '-' },
            { label: 'Control plane zones', value: [form.zone, secondZone].filter(Boolean).join(', ') || '-' },
            { label: 'VPC CIDR', value: form.vpcCidr || `${DEFAULT_CIDR} (default)` },
          ]}
        />
      </Container>
      <Container
        header={
          <Header variant="h2" description="Applied when the HyperPod cluster is created." actions={<Button onClick={() => setStep(2)}>Edit</Button>}>
            Compute
          </Header>
        }
      >
        <KeyValuePairs
          columns={4}
          items={[
            { label: 'Instance type', value: form.instanceType || '-' },
            { label: 'Instance count', value: form.instanceCount },
            { label: 'Capacity type', value: CAPACITY_LABELS[form.capacityType] },
            { label: 'Deep health checks', value: checks.length ? checks.join(', ') : 'Off' },
          ]}
        />
      </Container>
      <Alert type="info" header="What happens now">
        Launchpod creates the network, IAM role and EKS control plane in {form.zone || 'the zone'} and {secondZone || 'a second zone'}, then
        its OIDC provider, access entry and core add-ons. The compute choices are applied when the HyperPod cluster is created.
      </Alert>
      <ErrorAlert error={submitError} onDismiss={() => setSubmitError(null)} />
    </SpaceBetween>
  );

  return (
    <SpaceBetween size="m">
      <BreadcrumbGroup
        items={[
          { text: 'Clusters', href: '/clusters' },
          { text: 'Create cluster', href: '/clusters/create' },
        ]}
        onFollow={(event) => {
          event.preventDefault();
          navigate(event.detail.href);
        }}
        ariaLabel="Breadcrumbs"
      />
      <ErrorAlert error={loadError} />
      <Wizard
        activeStepIndex={step}
        isLoadingNextStep={submitting}
        allowSkipTo
        onNavigate={({ detail }) => {
          const forward = detail.requestedStepIndex > step;
          if (forward) {
            for (let index = step; index < detail.requestedStepIndex; index += 1) {
              if (show(validate(index))) return;
            }
          }
          setStep(detail.requestedStepIndex);
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
          { title: 'Choose a zone', content: placement },
          { title: 'Choose compute', content: compute },
          { title: 'Review and create', content: review },
        ]}
      />
    </SpaceBetween>
  );
}
