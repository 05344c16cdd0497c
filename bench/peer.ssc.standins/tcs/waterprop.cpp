/*
 * Hourglass bench stand-in for tcs/waterprop.cpp, used only when SSC's source
 * comes without tcs/waterprop_critical.dat (the snapshot the bench builds from
 * leaves out its largest blobs). The real file interpolates steam tables for the
 * CSP and geothermal steam models; every function here returns a non-zero error
 * code, which those models report as a failed property call. The bench runs
 * pvwattsv5, windpower, battery, grid and singleowner, which never call them.
 */
#include "waterprop.h"

static const int WATERPROP_UNAVAILABLE = 99;

int water_TQ(double, double, property_info *) { return WATERPROP_UNAVAILABLE; }
int water_PQ(double, double, property_info *) { return WATERPROP_UNAVAILABLE; }
int water_TP(double, double, property_info *) { return WATERPROP_UNAVAILABLE; }
int water_PH(double, double, property_info *) { return WATERPROP_UNAVAILABLE; }
int water_PS(double, double, property_info *) { return WATERPROP_UNAVAILABLE; }
