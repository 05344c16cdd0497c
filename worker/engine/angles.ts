// Angles: the engine's inputs and sun positions are in degrees, Math's functions take radians.

/** Radians per degree: `x * DEG` is x degrees in radians, `r / DEG` is r radians in degrees. */
export const DEG = Math.PI / 180;
