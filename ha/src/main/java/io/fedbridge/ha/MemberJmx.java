package io.fedbridge.ha;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link HaMember} in JMX, as {@code io.fedbridge:type=HaMember,name=<broker>} ({@link HaMemberMXBean}): its group,
 * role, state, epoch, primary and last error, and a promote operation. Not being in JMX is logged, never fatal.
 *
 * <p>Concurrency: thread-safe; the attributes read the member's volatile state on the JMX caller's thread.
 */
final class MemberJmx {

    private static final Logger LOG = LoggerFactory.getLogger(MemberJmx.class);

    private MemberJmx() {
    }

    /** Registers {@code member}; returns the name to {@link #unregister} with, or null if it could not be registered. */
    static ObjectName register(HaMember member, String group) {
        try {
            ObjectName n = new ObjectName("io.fedbridge:type=HaMember,name=" + ObjectName.quote(member.name()));
            HaMemberMXBean bean = new HaMemberMXBean() {
                @Override
                public String getGroup() {
                    return group;
                }

                @Override
                public String getRole() {
                    return member.role().label();
                }

                @Override
                public String getState() {
                    return member.state().label();
                }

                @Override
                public long getEpoch() {
                    return member.epoch();
                }

                @Override
                public String getPrimary() {
                    return member.primaryUri();
                }

                @Override
                public String getLastError() {
                    Object e = member.status().get("lastError");
                    return e == null ? null : e.toString();
                }

                @Override
                public String promote(boolean force) {
                    return member.promote(force).toString();
                }
            };
            ManagementFactory.getPlatformMBeanServer().registerMBean(new StandardMBean(bean, HaMemberMXBean.class, true), n);
            return n;
        } catch (JMException e) {
            LOG.warn("HA member {}: not in JMX: {}", member.name(), e.toString());
            return null;
        }
    }

    static void unregister(ObjectName n, String member) {
        if (n == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(n);
        } catch (JMException e) {
            LOG.debug("HA member {}: JMX: {}", member, e.toString());
        }
    }
}
