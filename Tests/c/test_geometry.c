/* C tests of bounding boxes, positions and convex hulls (mapcore/geometry.h). */
#include "test_support.h"

/* ---- bounding boxes ------------------------------------------------------------------------ */

static void test_bbox(void) {
    mc_geojson *g;
    mc_bbox box = {7, 7, 7, 7}, parts[2], out;
    int found = -1, flag = -1;
    size_t n = 0;
    double xy[] = {-10, 5, 20, -3, 7, 40};
    double bad[] = {1, 2, NAN, 4};
    current_test = "bbox";

    g = parse("{\"type\":\"LineString\",\"coordinates\":[[-10,5],[20,-3],[7,40]]}");
    CHECK_STATUS(mc_geojson_bbox(g, &box, &found), MC_OK);
    CHECK(found == 1 && box.west == -10 && box.south == -3 && box.east == 20 && box.north == 40);
    CHECK_STATUS(mc_geojson_bbox(g, NULL, &found), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_bbox(g, &box, NULL), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);

    /* No positions: no box, and the out box is not touched. */
    g = parse(
        "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":null,\"properties\":null}]}");
    box.west = 7;
    CHECK_STATUS(mc_geojson_bbox(g, &box, &found), MC_OK);
    CHECK(found == 0 && box.west == 7);
    mc_geojson_free(g);

    CHECK_STATUS(mc_bbox_of_positions(xy, 3, &box, &found), MC_OK);
    CHECK(found == 1 && box.west == -10 && box.south == -3 && box.east == 20 && box.north == 40);
    CHECK_STATUS(mc_bbox_of_positions(xy, 1, &box, &found), MC_OK);
    CHECK(found == 1 && box.west == -10 && box.east == -10 && box.south == 5 && box.north == 5);
    CHECK_STATUS(mc_bbox_of_positions(NULL, 0, &box, &found), MC_OK);
    CHECK(found == 0);
    CHECK_STATUS(mc_bbox_of_positions(NULL, 3, &box, &found), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_bbox_of_positions(bad, 2, &box, &found), MC_E_INVALID_ARGUMENT);
    bad[2] = INFINITY;
    CHECK_STATUS(mc_bbox_of_positions(bad, 2, &box, &found), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_bbox_of_positions((const double *)xy, SIZE_MAX / 2 + 5, &box, &found), MC_E_INVALID_ARGUMENT);

    {
        mc_bbox a = {-10, -5, 10, 5}, b = {0, 0, 30, 20}, far = {40, 40, 50, 50};
        mc_bbox cross = {170, -10, -170, 10}, east = {-175, 0, -160, 5}, west = {160, 0, 165, 5};
        mc_bbox bad_box = {0, 10, 1, 0}, nan_box = {NAN, 0, 1, 1};
        CHECK_STATUS(mc_bbox_merge(&a, &b, &out), MC_OK);
        CHECK(out.west == -10 && out.south == -5 && out.east == 30 && out.north == 20);
        /* Merging across the antimeridian keeps the short way round: 160..-160 (40 degrees). */
        CHECK_STATUS(mc_bbox_merge(&cross, &west, &out), MC_OK);
        CHECK(out.west == 160 && out.east == -170 && out.south == -10 && out.north == 10);
        CHECK_STATUS(mc_bbox_merge(&cross, &east, &out), MC_OK);
        CHECK(out.west == 170 && out.east == -160);
        CHECK_STATUS(mc_bbox_merge(&a, &bad_box, &out), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_bbox_merge(&a, &nan_box, &out), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_bbox_merge(NULL, &a, &out), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_bbox_merge(&a, &a, NULL), MC_E_INVALID_ARGUMENT);

        CHECK_STATUS(mc_bbox_contains(&a, 10, 5, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_contains(&a, 10.0001, 0, &flag), MC_OK);
        CHECK(flag == 0);
        CHECK_STATUS(mc_bbox_contains(&cross, 179, 0, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_contains(&cross, -175, 0, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_contains(&cross, 0, 0, &flag), MC_OK);
        CHECK(flag == 0);
        CHECK_STATUS(mc_bbox_contains(&a, NAN, 0, &flag), MC_E_INVALID_ARGUMENT);

        CHECK_STATUS(mc_bbox_intersects(&a, &b, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_intersects(&a, &far, &flag), MC_OK);
        CHECK(flag == 0);
        CHECK_STATUS(mc_bbox_intersects(&cross, &east, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_intersects(&cross, &west, &flag), MC_OK);
        CHECK(flag == 0);

        CHECK_STATUS(mc_bbox_crosses_antimeridian(&cross, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_crosses_antimeridian(&a, &flag), MC_OK);
        CHECK(flag == 0);

        CHECK_STATUS(mc_bbox_split_antimeridian(&cross, parts, &n), MC_OK);
        CHECK(n == 2 && parts[0].west == 170 && parts[0].east == 180 && parts[1].west == -180 && parts[1].east == -170);
        CHECK_STATUS(mc_bbox_split_antimeridian(&a, parts, &n), MC_OK);
        CHECK(n == 1 && parts[0].west == -10 && parts[0].east == 10);
        CHECK_STATUS(mc_bbox_split_antimeridian(&a, NULL, &n), MC_E_INVALID_ARGUMENT);
    }
}

/* ---- positions ----------------------------------------------------------------------------- */

static void test_positions(void) {
    mc_geojson *g =
        parse("{\"type\":\"FeatureCollection\",\"features\":["
              "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2,3]},\"properties\":null},"
              "{\"type\":\"Feature\",\"geometry\":null,\"properties\":null},"
              "{\"type\":\"Feature\",\"geometry\":{\"type\":\"GeometryCollection\",\"geometries\":["
              "{\"type\":\"LineString\",\"coordinates\":[[3,4],[5,6]]},{\"type\":\"MultiPoint\",\"coordinates\":[[7,8]]"
              "}]},\"properties\":null}]}");
    double xy[8] = {0}, small[4] = {-1, -1, -1, -1};
    size_t n = 0;
    int ok = 1, i;
    current_test = "positions";
    CHECK_STATUS(mc_geojson_position_count(g, &n), MC_OK);
    CHECK(n == 4);
    CHECK_STATUS(mc_geojson_positions(g, xy, 4, &n), MC_OK);
    CHECK(n == 4);
    for (i = 0; i < 8; i++) ok = ok && xy[i] == (double)(i + 1);
    CHECK(ok);
    CHECK_STATUS(mc_geojson_positions(g, small, 2, &n), MC_E_BUFFER_TOO_SMALL);
    CHECK(n == 4 && small[0] == -1); /* nothing written */
    CHECK_STATUS(mc_geojson_positions(g, NULL, 0, &n), MC_E_BUFFER_TOO_SMALL);
    CHECK(n == 4);
    CHECK_STATUS(mc_geojson_positions(g, NULL, 4, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_positions(g, xy, SIZE_MAX, &n), MC_OK); /* huge capacity is plenty */
    CHECK(n == 4 && xy[7] == 8);
    CHECK_STATUS(mc_geojson_positions(g, xy, 4, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_position_count(g, NULL), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);
}

/* ---- convex hull --------------------------------------------------------------------------- */

static void test_hull(void) {
    /* A square with an interior point, a point on an edge and a duplicate corner. */
    double square[] = {0, 0, 2, 0, 2, 2, 0, 2, 1, 1, 1, 0, 2, 2};
    double expected[] = {0, 0, 2, 0, 2, 2, 0, 2, 0, 0};
    double line[] = {0, 0, 3, 3, 1, 1, 2, 2};
    double same[] = {5, 5, 5, 5};
    double out[16], huge[] = {0, 0, 1e200, 0, 0, 1};
    double nan_in[] = {0, 0, NAN, 0, 0, 1};
    size_t n = 0;
    int i, ok = 1, type = -1;
    mc_geojson *g, *hull = NULL;
    char *text;
    current_test = "hull";

    CHECK_STATUS(mc_convex_hull_positions(square, 7, out, 8, &n), MC_OK);
    CHECK(n == 5);
    for (i = 0; i < 10; i++) ok = ok && out[i] == expected[i];
    CHECK(ok);
    CHECK_STATUS(mc_convex_hull_positions(line, 4, out, 8, &n), MC_OK);
    CHECK(n == 2 && out[0] == 0 && out[1] == 0 && out[2] == 3 && out[3] == 3);
    CHECK_STATUS(mc_convex_hull_positions(same, 2, out, 8, &n), MC_OK);
    CHECK(n == 1 && out[0] == 5 && out[1] == 5);
    CHECK_STATUS(mc_convex_hull_positions(NULL, 0, NULL, 0, &n), MC_OK);
    CHECK(n == 0);
    out[0] = -1;
    CHECK_STATUS(mc_convex_hull_positions(square, 7, out, 4, &n), MC_E_BUFFER_TOO_SMALL);
    CHECK(n == 5 && out[0] == -1);
    CHECK_STATUS(mc_convex_hull_positions(huge, 3, out, 8, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(nan_in, 3, out, 8, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(square, 7, out, 8, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(NULL, 3, out, 8, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(square, SIZE_MAX, out, 8, &n), MC_E_INVALID_ARGUMENT);

    g = parse("{\"type\":\"MultiPoint\",\"coordinates\":[[0,0],[2,0],[2,2],[0,2],[1,1]]}");
    CHECK_STATUS(mc_geojson_convex_hull(g, &hull), MC_OK);
    CHECK(hull != NULL);
    CHECK_STATUS(mc_geojson_geometry_type(hull, &type), MC_OK);
    CHECK(type == MC_GEOMETRY_POLYGON);
    text = serialize(hull, 0);
    CHECK(text && strcmp(text, "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}") == 0);
    free(text);
    mc_geojson_free(hull);
    mc_geojson_free(g);

    g = parse("{\"type\":\"MultiPoint\",\"coordinates\":[[0,0],[4,2]]}");
    CHECK_STATUS(mc_geojson_convex_hull(g, &hull), MC_OK);
    CHECK_STATUS(mc_geojson_geometry_type(hull, &type), MC_OK);
    CHECK(type == MC_GEOMETRY_LINE_STRING);
    mc_geojson_free(hull);
    mc_geojson_free(g);

    g = parse("{\"type\":\"FeatureCollection\",\"features\":[]}");
    hull = (mc_geojson *)&passed;
    CHECK_STATUS(mc_geojson_convex_hull(g, &hull), MC_OK);
    CHECK(hull == NULL);
    CHECK_STATUS(mc_geojson_convex_hull(g, NULL), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);
}

static void run(void) {
    test_bbox();
    test_positions();
    test_hull();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
