package io.fedbridge.ha;

/** Whether an HA member serves clients ({@code PRIMARY}) or copies the primary's store ({@code BACKUP}). */
public enum HaRole {
    PRIMARY, BACKUP;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
