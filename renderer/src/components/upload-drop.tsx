import { useState, type DragEvent } from 'react';
import { formatBytes } from './format';

/**
 * One box file, dropped on the zone or chosen with the picker (labelled `label`). While `disabled`
 * (an upload runs) neither the picker nor a drop takes another file: one upload at a time.
 */
export function UploadDrop({
  file,
  onFile,
  disabled,
  label = 'Box file',
  describedBy,
}: {
  file: File | null;
  onFile: (f: File | null) => void;
  disabled: boolean;
  label?: string;
  /** The id of what is said about the chosen file (why it cannot be used). */
  describedBy?: string;
}) {
  const [dragging, setDragging] = useState(false);
  const over = (e: DragEvent) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = disabled ? 'none' : 'copy';
    if (!disabled) setDragging(true);
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const f = e.dataTransfer.files[0];
    if (!disabled && f) onFile(f);
  };
  // A group of the file input (the way in for the keyboard) and the area a file may be dropped on.
  return (
    <fieldset
      className={`drop-zone wide${dragging ? ' dragging' : ''}${disabled ? ' disabled' : ''}`}
      aria-label="Drop a .box file here"
      aria-disabled={disabled}
      onDragOver={over}
      onDragLeave={() => setDragging(false)}
      onDrop={drop}
    >
      <p>
        Drop a <code>.box</code> file here, or choose one:
      </p>
      {/* Visible, so the keyboard reaches it; the form checks a file was chosen (a hidden required input blocks the submit silently). */}
      <input
        name="file"
        type="file"
        aria-label={label}
        aria-describedby={describedBy}
        aria-invalid={describedBy ? true : undefined}
        accept=".box,application/octet-stream"
        disabled={disabled}
        onChange={(e) => onFile(e.target.files?.[0] ?? null)}
      />
      {file && (
        <p className="muted">
          <output aria-label="Chosen file">
            <span className="mono">{file.name}</span> ({formatBytes(file.size)})
          </output>
        </p>
      )}
    </fieldset>
  );
}
