import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { updateBox } from '../../api/boxes';
import { useSession } from '../../api/session';
import { boxViews } from '../../api/query-keys';
import type { BoxJson } from '../../../../daemon/src/contract/wire/registry';
import type { UpdateBox } from '../../../../daemon/src/contract/bodies/registry';
import type { z } from 'zod';
import { Markdown } from '../markdown';
import { FieldError } from '../field-error';
import { TextEdit } from './text-edit';

type Patch = z.input<typeof UpdateBox>;

/** Saves one change to the box (PUT /api/v1/box/…) and refreshes everything that shows it. */
function useBoxSave(box: BoxJson) {
  const { api } = useSession();
  const qc = useQueryClient();
  return async (patch: Patch) => {
    await updateBox(api, box.username, box.name, patch);
    await Promise.all(boxViews(box.username, box.name).map((queryKey) => qc.invalidateQueries({ queryKey })));
  };
}

/** Public or private, switched at once; a refusal shows beside the switch. */
function PrivateSwitch({ box, save }: { box: BoxJson; save: (p: Patch) => Promise<void> }) {
  const [error, setError] = useState<unknown>(null);
  /** The value being saved, shown at once; back to the box's own once saved or refused. */
  const [saving, setSaving] = useState<boolean | null>(null);
  const toggle = async (isPrivate: boolean) => {
    setSaving(isPrivate);
    setError(null);
    try {
      await save({ is_private: isPrivate });
    } catch (e) {
      setError(e);
    } finally {
      setSaving(null);
    }
  };
  return (
    <div className="private-switch">
      <label className="check">
        <input
          type="checkbox"
          checked={saving ?? box.private}
          disabled={saving !== null}
          onChange={(e) => void toggle(e.target.checked)}
        />{' '}
        Private (only members of {box.username} and administrators see it)
      </label>
      <FieldError error={error} />
    </div>
  );
}

/**
 * The box's short description and its description (Markdown, rendered sanitized), each editable
 * on its own by those who may change the box, and its private flag.
 */
export function BoxAbout({ box, manage }: { box: BoxJson; manage: boolean }) {
  const save = useBoxSave(box);
  return (
    <div className="box-about">
      {box.short_description && <p className="lead">{box.short_description}</p>}
      {manage && (
        <TextEdit
          label="Short description"
          value={box.short_description}
          save={(v) => save({ short_description: v })}
        />
      )}
      <Markdown source={box.description_markdown} />
      {manage && (
        <TextEdit
          label="Description"
          value={box.description_markdown}
          multiline
          save={(v) => save({ description: v })}
        />
      )}
      {manage && <PrivateSwitch box={box} save={save} />}
    </div>
  );
}
