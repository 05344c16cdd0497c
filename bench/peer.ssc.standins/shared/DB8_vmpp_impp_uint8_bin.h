/*
 * Hourglass bench stand-in, used only when SSC's source comes without this file
 * (the snapshot the bench builds from leaves out its largest blobs).
 *
 * The real file holds the zlib-compressed partial-shading database that only
 * pvsamv1's "shading database" option reads. This stand-in has the declared size
 * but no zlib header, so ShadeDB8_mpp::decompress_file_to_uint8 fails with an
 * error message instead of reading a wrong table. The bench never runs pvsamv1.
 */
const unsigned char pCmp_data[3133517] = {0};
