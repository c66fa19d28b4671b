/* Reads a GeoJSON file and prints its bounding box and convex hull. */
#include <mapcore.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long size;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)size + 1);
        if (data) *len = fread(data, 1, (size_t)size, f);
    }
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    size_t len = 0;
    char *json = argc > 1 ? read_file(argv[1], &len) : NULL;
    mc_geojson *doc = NULL, *hull = NULL;
    mc_bbox box;
    int found = 0;
    mc_buf text = MC_BUF_INIT;
    if (!json) { fprintf(stderr, "usage: %s FILE.geojson\n", argv[0]); return 2; }
    if (mc_geojson_parse(json, len, NULL, &doc) != MC_OK) {
        const mc_error *e = mc_last_error();
        fprintf(stderr, "%s: %s (line %lld, column %lld, at %s)\n", argv[1], e->message,
                (long long)e->line, (long long)e->column, e->path);
        free(json);
        return 1;
    }
    free(json);
    if (mc_geojson_bbox(doc, &box, &found) == MC_OK && found)
        printf("bbox: %.6f %.6f %.6f %.6f\n", box.west, box.south, box.east, box.north);
    if (mc_geojson_convex_hull(doc, &hull) == MC_OK && hull &&
        mc_geojson_serialize(hull, 0, &text) == MC_OK)
        printf("hull: %.80s...\n", text.data);
    mc_buf_dispose(&text);
    mc_geojson_free(hull);
    mc_geojson_free(doc);
    printf("mapcore %s\n", mc_version());
    return 0;
}
