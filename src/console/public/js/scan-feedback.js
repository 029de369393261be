// Feedback on every scan (issue 43: "clear feedback on every scan"), for the floor tasks and
// the document scans alike.

/**
 * Feedback on a scan that a busy employee notices without reading: the field flashes green
 * or red, the handheld vibrates (once for good, three times for a problem) and beeps (high
 * for good, low for a problem) where the browser allows it.
 */
export function scanFeedback(input, ok) {
  input.classList.remove('scan-ok', 'scan-bad');
  // Re-adding the class restarts the flash for a second scan in a row.
  void input.offsetWidth;
  input.classList.add(ok ? 'scan-ok' : 'scan-bad');
  if (!ok) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  navigator.vibrate?.(ok ? 60 : [90, 60, 90, 60, 90]);
  beep(ok ? 1320 : 220, ok ? 0.08 : 0.25);
}

let audio;
function beep(frequency, seconds) {
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = frequency;
    volume.gain.value = 0.08;
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + seconds);
  } catch {
    // No sound (no audio device, or the browser refuses it before a gesture): the flash says it.
  }
}
