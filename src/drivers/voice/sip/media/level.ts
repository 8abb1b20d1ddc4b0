/** Frame loudness as mod_amd measures it: the mean absolute sample value of 16-bit PCM. */
export function meanAbs(pcm: Int16Array): number {
  if (pcm.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += Math.abs(pcm[i]);
  return sum / pcm.length;
}
