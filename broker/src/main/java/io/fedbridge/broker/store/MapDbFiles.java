package io.fedbridge.broker.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.mapdb.DB;
import org.mapdb.DBException;
import org.mapdb.DBMaker;

/** Opening the dedupe files: MapDB with transactions, memory-mapped where supported, and errors that name the file. */
final class MapDbFiles {

    private MapDbFiles() {
    }

    /**
     * Opens (or creates, with its directory) the MapDB file {@code file}, which the errors call {@code what}.
     *
     * @throws StoreException when the file is in use (cause: MapDB's {@code DBException.FileLocked}), is not a MapDB
     *                        file, or cannot be created
     */
    static DB open(Path file, String what) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
        } catch (IOException e) {
            throw new StoreException("cannot create the directory of " + what + " " + file + ": " + e.getMessage(), e);
        }
        try {
            return DBMaker.fileDB(file.toFile()).transactionEnable().fileMmapEnableIfSupported().cleanerHackEnable().make();
        } catch (DBException.FileLocked e) {
            throw new StoreException(what + " " + file + " is in use by another process", e);
        } catch (DBException.WrongFormat e) {
            throw new StoreException(what + " " + file + " is not a MapDB file (" + e.getMessage() + ")", e);
        } catch (DBException | java.io.IOError e) {
            throw new StoreException("cannot open " + what + " " + file + ": " + e.getMessage(), e);
        }
    }
}
