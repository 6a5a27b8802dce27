package io.fedbridge.broker.cluster.internal;

import io.fedbridge.broker.BrokerException;
import io.fedbridge.broker.cluster.DestinationDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBException;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * Where a broker keeps destination definitions: a transactional MapDB BTreeMap (name to stored text) in
 * {@code DATA/definitions.db}, one commit per change, so a definition accepted survives a crash; or nothing, for a
 * broker without a data directory. Thread-safe (synchronized).
 */
public final class DefinitionStore implements AutoCloseable {

    private static final String MAP_NAME = "definitions";
    private final DB db;
    private final BTreeMap<String, String> map;
    private final Path file;

    private DefinitionStore(DB db, BTreeMap<String, String> map, Path file) {
        this.db = db;
        this.map = map;
        this.file = file;
    }

    /** Opens {@code dataDirectory/definitions.db}; a null directory keeps nothing. */
    public static DefinitionStore open(Path dataDirectory, String brokerName) {
        if (dataDirectory == null) {
            return new DefinitionStore(null, null, null);
        }
        Path file = dataDirectory.resolve("definitions.db");
        DB db;
        try {
            Files.createDirectories(dataDirectory);
            db = DBMaker.fileDB(file.toFile()).transactionEnable().fileMmapEnableIfSupported().cleanerHackEnable().make();
        } catch (IOException | DBException | java.io.IOError e) {
            throw new BrokerException("broker " + brokerName + " cannot open its destination definitions " + file + ": "
                    + e.getMessage(), e);
        }
        BTreeMap<String, String> map = db.treeMap(MAP_NAME, Serializer.STRING, Serializer.STRING).createOrOpen();
        db.commit();
        return new DefinitionStore(db, map, file);
    }

    /** Every stored definition, in name order. */
    public synchronized List<DestinationDefinition> load() {
        List<DestinationDefinition> l = new ArrayList<>();
        if (map != null) {
            for (Map.Entry<String, String> e : map.entrySet()) {
                l.add(DefinitionCodec.fromStored(e.getKey(), e.getValue()));
            }
        }
        return l;
    }

    public synchronized void put(DestinationDefinition d) {
        if (map == null) {
            return;
        }
        try {
            map.put(d.destination(), DefinitionCodec.toStored(d));
            db.commit();
        } catch (DBException | java.io.IOError e) {
            throw new BrokerException("cannot store the definition of " + d.destination() + " in " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        if (db != null && !db.isClosed()) {
            db.close();
        }
    }
}
