package io.fedbridge.jms.internal;

import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.ObjectMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.List;

/**
 * A message whose body is a serialized Java object. Deserializing what a remote sender wrote runs its classes' code, so
 * {@link #getObject()} refuses unless the connection factory names {@code trustedPackages} (or {@code trustAllPackages});
 * then only classes of those packages, primitives, {@code java.lang} boxes and strings, and arrays of them pass.
 */
public final class JmsObjectMessage extends JmsMessage implements ObjectMessage {

    private byte[] serialized;
    private final List<String> trustedPackages;
    private final boolean trustAll;

    JmsObjectMessage(List<String> trustedPackages, boolean trustAll) {
        this.trustedPackages = trustedPackages;
        this.trustAll = trustAll;
    }

    byte[] serialized() {
        return serialized == null ? new byte[0] : serialized;
    }

    void setReceivedBody(byte[] body) {
        this.serialized = body.length == 0 ? null : body;
    }

    @Override
    public void setObject(Serializable object) throws JMSException {
        checkWritable();
        if (object == null) {
            serialized = null;
            return;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(object);
        } catch (IOException e) {
            MessageFormatException x = new MessageFormatException("cannot serialize " + object.getClass().getName() + ": " + e);
            x.setLinkedException(e);
            throw x;
        }
        serialized = b.toByteArray();
    }

    @Override
    public Serializable getObject() throws JMSException {
        if (serialized == null) {
            return null;
        }
        if (!trustAll && trustedPackages.isEmpty()) {
            throw new MessageFormatException("ObjectMessage body refused: deserializing a sender's classes runs their code; "
                    + "name the packages you trust with the connection factory's trustedPackages (or trustAllPackages=true)");
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialized))) {
            if (!trustAll) {
                in.setObjectInputFilter(this::check);
            }
            return (Serializable) in.readObject();
        } catch (java.io.InvalidClassException e) {
            MessageFormatException x = new MessageFormatException("ObjectMessage body refused: a class outside trustedPackages "
                    + trustedPackages + " (" + e.getMessage() + ")");
            x.setLinkedException(e);
            throw x;
        } catch (IOException | ClassNotFoundException e) {
            MessageFormatException x = new MessageFormatException("cannot deserialize the ObjectMessage body: " + e);
            x.setLinkedException(e);
            throw x;
        }
    }

    private ObjectInputFilter.Status check(ObjectInputFilter.FilterInfo info) {
        Class<?> c = info.serialClass();
        if (c == null) {
            return ObjectInputFilter.Status.UNDECIDED;
        }
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (c.isPrimitive() || c == String.class || c == Boolean.class || c == Character.class || Number.class.isAssignableFrom(c)
                && c.getPackageName().equals("java.lang") || c == Number.class || c == Enum.class || c == Object.class) {
            return ObjectInputFilter.Status.ALLOWED;
        }
        String pkg = c.getPackageName();
        for (String t : trustedPackages) {
            if (pkg.equals(t) || pkg.startsWith(t + ".")) {
                return ObjectInputFilter.Status.ALLOWED;
            }
        }
        return ObjectInputFilter.Status.REJECTED;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        serialized = null;
    }

    @Override
    protected Object bodyObject() throws JMSException {
        return getObject();
    }

    @Override
    protected String kind() {
        return "ObjectMessage";
    }
}
