// The create-cluster wizard's optional storage step: a Mountpoint for S3 or FSx for Lustre claim mounted as
// part of provisioning.
import Alert from '@cloudscape-design/components/alert';
import Container from '@cloudscape-design/components/container';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import RadioGroup from '@cloudscape-design/components/radio-group';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Toggle from '@cloudscape-design/components/toggle';

import type { StorageChoices, StorageField, WizardField } from '../lib/createCluster';

interface Props {
  choices: StorageChoices;
  mounted: boolean;
  unavailable: string | null; // why storage cannot be added here, or null
  errors: Partial<Record<WizardField | 'form', string>>;
  onMount: (checked: boolean) => void;
  onChange: (change: Partial<StorageChoices>, field: StorageField) => void;
}

export default function StorageStep({ choices, mounted, unavailable, errors, onMount, onChange }: Props) {
  const text = (field: Exclude<StorageField, 'kind'>, label: string, placeholder: string, description?: string) => (
    <FormField label={label} description={description} errorText={errors[`storage.${field}`]}>
      <Input value={choices[field]} placeholder={placeholder} onChange={({ detail }) => onChange({ [field]: detail.value }, field)} />
    </FormField>
  );
  return (
  <Container
    header={
      <Header variant="h2" description="A volume claim pods can mount, bound once the dependencies are installed.">
        Storage
      </Header>
    }
  >
    <SpaceBetween size="l">
      {unavailable ? <Alert type="info">{unavailable}</Alert> : null}
      {errors.storage ? (
        <Alert type="error" header="Storage">
          {errors.storage}
        </Alert>
      ) : null}
      <Toggle
        checked={mounted}
        disabled={!!unavailable}
        onChange={({ detail }) => onMount(detail.checked)}
      >
        Mount storage
      </Toggle>
      {mounted ? (
        <>
          <FormField label="Source" errorText={errors['storage.kind']}>
            <RadioGroup
              value={choices.kind}
              onChange={({ detail }) => onChange({ kind: detail.value as StorageChoices['kind'] }, 'kind')}
              items={[
                { value: 's3', label: 'Amazon S3', description: "The cluster's shared bucket, or a prefix of it, through Mountpoint for S3." },
                { value: 'fsx', label: 'FSx for Lustre', description: 'An existing file system; needs the optional dependencies (FSx CSI driver).' },
              ]}
            />
          </FormField>
          {text('storageName', 'Claim name', 'datasets', 'Names the PersistentVolumeClaim pods mount, and its PersistentVolume.')}
          {text('namespace', 'Namespace', 'default')}
          {choices.kind === 's3'
            ? text('prefix', 'Prefix', 'datasets/imagenet', 'Mount only this prefix of the bucket; leave empty for the whole bucket.')
            : text('fileSystemId', 'File system id', 'fs-0123456789abcdef0', 'An FSx for Lustre file system in this region.')}
        </>
      ) : null}
    </SpaceBetween>
  </Container>
  );
}
